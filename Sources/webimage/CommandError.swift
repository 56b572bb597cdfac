import Foundation
import WebImage

/// Turns any error into the `WebImageError` the tool reports, and prints it.
enum CommandError {
    /// `error` itself when it is a `WebImageError`; otherwise wrapped with a fitting code.
    static func webImageError(_ error: any Error) -> WebImageError {
        if let e = error as? WebImageError { return e }
        if error is CancellationError { return .cancelled() }
        return WebImageError(.badImageData, String(describing: error))
    }

    /// `"name (code): message"` on stderr, so a person sees what the code means; a URL
    /// subject has its credentials masked.
    static func report(_ error: any Error, subject: String) {
        FileHandle.standardError.write(Data(line(error, subject: subject).utf8))
    }

    /// The line ``report(_:subject:)`` writes, newline included.
    static func line(_ error: any Error, subject: String) -> String {
        "webimage: \(subject.redactedURLForLog): \(webImageError(error).description)\n"
    }
}
