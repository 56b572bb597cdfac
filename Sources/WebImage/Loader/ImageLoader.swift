import Foundation

/// Reports bytes received so far and the bytes expected (−1 when unknown).
/// Runs on the request's callback queue.
public typealias ImageLoaderProgress = @Sendable (_ receivedBytes: Int, _ expectedBytes: Int) -> Void

/// Receives partial images (`isFinished == false`) and then exactly one final result:
/// a response with `isFinished == true` or an error. Runs on the request's callback queue.
public typealias ImageLoaderCompletion = @Sendable (_ result: Result<ImageLoadResponse, WebImageError>) -> Void

/// Fetches image data for a URL and decodes it: the seam between the manager and the
/// network (SDWebImage's `SDImageLoader`).
///
/// Built in: ``ImageDownloader`` for http/https, ``FileImageLoader`` for `file:` and
/// ``DataURLImageLoader`` for `data:`; ``ImageLoadersManager`` composes several.
///
/// ```swift
/// let token = ImageDownloader.shared.requestImage(with: url, options: [.progressiveLoad],
///                                                 context: ImageLoaderContext(), progress: nil) { result in
///     if case .success(let response) = result, response.isFinished { show(response.image) }
/// }
/// token.cancel()   // this caller only
/// ```
public protocol ImageLoader: AnyObject, Sendable {
    /// Whether this loader handles `url` (normally by its scheme).
    func canRequestImage(for url: URL?) -> Bool

    /// Starts loading `url` and returns this caller's token.
    ///
    /// Never calls back synchronously: every callback runs on
    /// ``ImageLoaderContext/callbackQueue`` (or the loader's queue). `completed` receives
    /// any partial images, then exactly one final result.
    func requestImage(
        with url: URL?,
        options: DownloaderOptions,
        context: ImageLoaderContext,
        progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> ImageLoadToken

    /// Whether a URL that failed with `error` should be blocked from further attempts
    /// (unless the caller asks to retry). Transient failures are not blocked.
    func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool
}

extension ImageLoader {
    /// The default policy: block unless the failure is transient (cancelled, timed out,
    /// cannot connect, cannot find host, connection lost, HTTP 408, 429, 500, 502, 503,
    /// 504) or a refusal of the hop policy (``WebImageError/Code/forbiddenAddress``,
    /// ``WebImageError/Code/sourceNotAllowed``: they say nothing about the URL's server and
    /// must not make it look down).
    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool {
        !Self.isNeverBlocked(error)
    }

    static var transientCodes: Set<WebImageError.Code> {
        [.cancelled, .timedOut, .cannotConnect, .cannotFindHost, .connectionLost]
    }

    /// Codes no loader's default policy puts on the block list.
    static var neverBlockedCodes: Set<WebImageError.Code> { transientCodes.union([.forbiddenAddress, .sourceNotAllowed]) }

    /// Whether no loader's default policy blocks `error`: a never-blocked code or a
    /// status worth retrying (``RetryPolicy/isRetryable(_:)``).
    static func isNeverBlocked(_ error: WebImageError) -> Bool {
        neverBlockedCodes.contains(error.code) || RetryPolicy.isRetryable(error)
    }

    /// Loads `url` and returns the final response; partial images are not reported.
    ///
    /// Cancelling the calling task cancels this caller's load, which then throws
    /// ``WebImageError/Code/cancelled``.
    public func loadImage(
        with url: URL?,
        options: DownloaderOptions = [],
        context: ImageLoaderContext = ImageLoaderContext(),
        progress: ImageLoaderProgress? = nil
    ) async throws(WebImageError) -> ImageLoadResponse {
        try await Self.finalResponse { completed in
            requestImage(with: url, options: options, context: context, progress: progress, completed: completed)
        }
    }

    /// The `async` bridge of every loader: runs `start`, skips partial images, returns the
    /// final response, and cancels the token when the calling task is cancelled (also
    /// before `start` has returned it).
    static func finalResponse(
        _ start: (@escaping ImageLoaderCompletion) -> ImageLoadToken
    ) async throws(WebImageError) -> ImageLoadResponse {
        let slot = CancellationSlot()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<ImageLoadResponse, WebImageError>, Never>) in
                let token = start { result in
                    if case .success(let response) = result, !response.isFinished { return }
                    continuation.resume(returning: result)
                }
                slot.set { token.cancel() }
            }
        } onCancel: {
            slot.cancel()
        }
        return try result.get()
    }
}
