import Foundation
import WebImage

/// Loads the image a command-line argument names: a path, or a `file:`, `http:`,
/// `https:` or `data:` URL.
enum ImageSource {
    /// Decodes `argument` with `options`: files are read and decoded here, URLs go
    /// through ``ImageLoadersManager/shared`` (the shared downloader for http and https).
    ///
    /// - Throws: ``WebImageError/Code/invalidURL`` when a file cannot be read, or
    ///   whatever the loader or decoder reports.
    static func image(for argument: String, options: ImageDecodeOptions) async throws -> DecodedImage {
        if let url = URL(string: argument), let scheme = url.scheme?.lowercased(), ["http", "https", "data"].contains(scheme) {
            let response = try await ImageLoadersManager.shared.loadImage(
                with: url, context: ImageLoaderContext(decodeOptions: options))
            guard let image = response.image else { throw WebImageError.badImageData("\(argument) gave no image") }
            return image
        }
        let data = try fileData(for: argument)
        return try await DecodeQueue.shared.run { try ImageCodersManager.shared.decode(data, options: options) }
    }

    /// The bytes of a path or `file:` URL.
    static func fileData(for argument: String) throws -> Data {
        let url = argument.hasPrefix("file:") ? URL(string: argument) : URL(fileURLWithPath: argument)
        guard let url, url.isFileURL else { throw WebImageError(.invalidURL, "Not a file: \(argument)") }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw WebImageError(.invalidURL, "Cannot read \(url.path): \(error.localizedDescription)")
        }
    }
}
