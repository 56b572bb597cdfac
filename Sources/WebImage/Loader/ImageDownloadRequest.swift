import Foundation

/// The request the downloader is about to send, as a request modifier sees it.
///
/// Headers already hold the configured defaults, Basic credentials, validators and
/// cookies; a modifier may change the URL or headers, or return `nil` to veto it.
public struct ImageDownloadRequest: Sendable, Hashable {
    /// The URL to fetch (http or https).
    public var url: URL
    /// The request headers.
    public var headers: HTTPHeaderFields

    /// Creates a request for `url` with `headers`.
    public init(url: URL, headers: HTTPHeaderFields = [:]) {
        self.url = url
        self.headers = headers
    }
}

/// Changes a request before it is sent, or vetoes it by returning `nil` (that request
/// fails with ``WebImageError/Code/invalidDownloadOperation``). Runs on the transfer's task.
public typealias ImageDownloadRequestModifier = @Sendable (ImageDownloadRequest) -> ImageDownloadRequest?

/// Changes a response's status or headers before they are checked, or rejects it by
/// returning `nil` (the load fails with ``WebImageError/Code/invalidDownloadResponse``).
/// Runs on the transfer's task.
public typealias ImageDownloadResponseModifier = @Sendable (HTTPResponseInfo) -> HTTPResponseInfo?
