import Foundation

/// Reports bytes received so far and the bytes expected (−1 when unknown).
public typealias ImageLoaderProgress = @Sendable (_ receivedBytes: Int, _ expectedBytes: Int) -> Void

/// Fetches image data for a URL and decodes it: the seam between the manager and the
/// network (SDWebImage's `SDImageLoader`).
///
/// Built in: ``ImageDownloader`` for http/https, ``FileImageLoader`` for `file:` and
/// ``DataURLImageLoader`` for `data:`; ``ImageLoadersManager`` composes several.
///
/// ```swift
/// let response = try await ImageDownloader.shared.loadImage(with: url)
/// ```
///
/// The load requirement is `async`: ``loadImage(with:options:context:observer:)``. The
/// protocol takes no queue and no completion handler; the callback form
/// (`requestImage(with:options:context:progress:completed:)`, delivered on a
/// `DispatchQueue`) belongs to ``WebImageCompat/ImageLoaderCallbacks``, an adapter over this
/// requirement in the WebImageCompat target.
public protocol ImageLoader: AnyObject, Sendable {
    /// Whether this loader handles `url` (normally by its scheme).
    func canRequestImage(for url: URL?) -> Bool

    /// Loads `url` and returns the final response; the calling task is suspended while
    /// the loader's own threads do the work (never blocking the cooperative pool).
    ///
    /// `observer` hears progress and partial images while the load runs, on the loader's
    /// threads, and its token steers it: a priority change reorders the loader's queue,
    /// and ``ImageLoadToken/cancel()`` ends this caller's load as cancelling the task does.
    ///
    /// `options` are the manager's ``WebImageOptions``; a loader reads only its bits
    /// (priority, ``WebImageOptions/progressiveLoad``, cookies, TLS, the decode options and
    /// the conditional-request ones, ``WebImageOptions/useHTTPCache`` and
    /// ``WebImageOptions/ignoreCachedResponse``), and the manager passes no others.
    ///
    /// `context` is the one ``WebImageContext`` of the load; a loader reads its decoding
    /// (``WebImageContext/decodeOptions``, which the manager always sets, else the fields
    /// it is derived from), ``WebImageContext/imageCoder``, ``WebImageContext/validators``,
    /// the request and response modifiers and ``WebImageContext/retryPolicy``.
    ///
    /// - Throws: the load's ``WebImageCodecs/WebImageError``; ``WebImageCodecs/WebImageError/Code/cancelled`` when the
    ///   task or the token was cancelled.
    func loadImage(
        with url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver
    ) async throws(WebImageError) -> ImageLoadResponse

    /// Whether a URL that failed with `error` should be blocked from further attempts
    /// (unless the caller asks to retry). Transient failures are not blocked.
    func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool
}

extension ImageLoader {
    /// The default policy: block unless the failure is transient (cancelled, timed out,
    /// cannot connect, cannot find host, connection lost, HTTP 408, 429, 500, 502, 503,
    /// 504) or a refusal of the hop policy (``WebImageCodecs/WebImageError/Code/forbiddenAddress``,
    /// ``WebImageCodecs/WebImageError/Code/sourceNotAllowed``: they say nothing about the URL's server and
    /// must not make it look down).
    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool {
        !FailedURLPolicy.isNeverBlocked(error)
    }

    /// Loads `url` and returns the final response; partial images and progress are not
    /// reported (``WebImageCompat/ImageLoaderCallbacks`` adds a form with progress on a queue).
    /// Cancelling the calling task cancels this caller's load, which then throws
    /// ``WebImageCodecs/WebImageError/Code/cancelled``; a `nil` or unhandled URL throws
    /// ``WebImageCodecs/WebImageError/Code/invalidURL``.
    public func loadImage(
        with url: URL?, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
    ) async throws(WebImageError) -> ImageLoadResponse {
        guard let url else { throw WebImageError(.invalidURL, "The image URL is nil") }
        return try await loadImage(with: url, options: options, context: context, observer: ImageLoadObserver())
    }
}
