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
/// fails with ``WebImageCodecs/WebImageError/Code/invalidDownloadOperation``). Runs on the thread that calls
/// ``ImageLoader/loadImage(with:options:context:observer:)`` (or the callback form), before
/// the request joins a transfer.
public typealias ImageDownloadRequestModifier = @Sendable (ImageDownloadRequest) -> ImageDownloadRequest?

/// Changes a response's status or headers before they are checked, or rejects it by
/// returning `nil` (the load fails with ``WebImageCodecs/WebImageError/Code/invalidDownloadResponse``).
/// Runs on the transfer's event loop when the response head arrives, so it must return
/// at once (no I/O, no locks held long).
public typealias ImageDownloadResponseModifier = @Sendable (HTTPResponseInfo) -> HTTPResponseInfo?
