import Foundation
import WebImage

/// Reads the encoded bytes a command-line argument names: a path or a `file:` URL.
enum ImageSource {
    /// The bytes of `argument`.
    ///
    /// - Throws: ``WebImageError/Code/invalidURL`` when the file cannot be read.
    static func data(for argument: String) async throws -> Data {
        let url = argument.hasPrefix("file:") ? URL(string: argument) : URL(fileURLWithPath: argument)
        guard let url, url.isFileURL else { throw WebImageError(.invalidURL, "Not a file: \(argument)") }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw WebImageError(.invalidURL, "Cannot read \(url.path): \(error.localizedDescription)")
        }
    }
}
