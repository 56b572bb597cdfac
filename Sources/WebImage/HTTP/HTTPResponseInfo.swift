import Foundation

/// What the server answered: status, headers and the URL after redirects.
///
/// ``ImageLoadResponse/http`` carries it so the manager can store the validators;
/// a response modifier (``DownloaderConfig/responseModifier``) may rewrite it before
/// the downloader checks it.
public struct HTTPResponseInfo: Sendable, Hashable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The response headers.
    public var headers: HTTPHeaderFields
    /// The URL that answered, after any redirects.
    public var url: URL
    /// Network attempts the transfer took to get this response (``RetryPolicy``): 1
    /// unless transient failures were retried.
    public var attempts = 1

    /// Creates a response description.
    public init(statusCode: Int, headers: HTTPHeaderFields, url: URL) {
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
    }

    /// `ETag` and `Last-Modified`, for a later conditional request, and the freshness
    /// the caching headers give (counted from now).
    public var validators: HTTPValidators { validators(shared: false) }

    /// ``validators``, with the freshness a shared cache (`shared`) reads (`s-maxage`).
    package func validators(shared: Bool) -> HTTPValidators {
        HTTPValidators(
            etag: headers["ETag"], lastModified: headers["Last-Modified"],
            freshness: HTTPFreshness(headers: headers, receivedAt: Date(), shared: shared))
    }

    /// Whether `Cache-Control` says `no-store`: the response must not be written to disk.
    public var isNoStore: Bool {
        headers["Cache-Control"].map { HTTPFreshness.directives($0).keys.contains("no-store") } ?? false
    }

    /// The declared `Content-Length`, or `nil` when absent or not a number.
    public var expectedContentLength: Int? {
        guard let text = headers["Content-Length"],
              let n = Int(text) ?? Int(text.trimmingCharacters(in: .whitespaces)), n >= 0
        else { return nil }
        return n
    }

    /// The media type of `Content-Type` without parameters, lowercased (`"image/png"`).
    public var mimeType: String? {
        guard let text = headers["Content-Type"] else { return nil }
        let type = text.split(separator: ";", maxSplits: 1).first.map(String.init) ?? text
        let trimmed = type.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }
}

// MARK: - ResponseCause

/// The response an error is about, as its underlying cause: a 304
/// (``WebImageCodecs/WebImageError/Code/cacheNotModified``), whose headers (`Cache-Control`,
/// `Date`, `ETag`) update the stored entry, or a status the downloader's config refused
/// (``WebImageCodecs/WebImageError/Code/invalidDownloadStatusCode``), which its fetch hands
/// over with its headers (``FetchOutcome/status(_:)``).
package struct ResponseCause: Error, Sendable {
    /// The response.
    package var http: HTTPResponseInfo
}
