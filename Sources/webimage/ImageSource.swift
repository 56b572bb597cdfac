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
            var context = WebImageContext()
            context.decodeOptions = options
            let response = try await ImageLoadersManager.shared.loadImage(with: url, context: context)
            guard let image = response.image else { throw WebImageError.badImageData("\(argument) gave no image") }
            return image
        }
        let data = try fileData(for: argument)
        return try await DecodeQueue.shared.run { try ImageCodersManager.shared.decode(data, options: options) }
    }

    /// The largest file a command reads: 4 GiB.
    static let maxFileBytes = 1 << 32

    /// The bytes of a path or `file:` URL (a regular file; blocks the calling thread).
    static func fileData(for argument: String) throws -> Data {
        let url = argument.hasPrefix("file:") ? URL(string: argument) : URL(fileURLWithPath: argument)
        guard let url, url.isFileURL else { throw WebImageError(.invalidURL, "Not a file: \(argument)") }
        // The loader's own read: "No file at PATH", "PATH is not a regular file", not
        // Foundation's "The file … couldn't be opened" boilerplate.
        return try FileImageLoader.readRegularFile(url.path, limit: Self.maxFileBytes).get()
    }
}
