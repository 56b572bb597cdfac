import Foundation
import Synchronization

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
    /// must not make it look down) or of the downloader itself
    /// (``WebImageCodecs/WebImageError/Code/invalidDownloadOperation``: shut down, a request
    /// modifier's veto).
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

// MARK: - ImageLoadToken

/// One caller's handle on a load: cancel it and only this caller stops; change its
/// priority and the loader's queue reorders.
///
/// The callback form (``WebImageCompat/ImageLoaderCallbacks/requestImage(with:options:context:progress:completed:)``)
/// returns one per call, even when several callers share one transfer. The `async` form
/// takes one in its ``ImageLoadObserver`` when the caller wants to steer the load from
/// outside its task. Cancelling delivers ``WebImageCodecs/WebImageError/Code/cancelled`` to this caller at
/// once (unless it already completed) and stops the transfer when no caller is left.
/// Thread-safe; cancelling twice does nothing more.
///
/// A loader registers what a cancel and a priority change do with ``onCancel(_:)`` and
/// ``onPriorityChange(_:)``; both run outside the token's lock, on the changing thread.
public final class ImageLoadToken: Sendable {
    /// The URL this token loads.
    public let url: URL?
    private struct State {
        var cancelActions: [@Sendable () -> Void] = []
        var priorityAction: (@Sendable (ImageLoadPriority) -> Void)?
        var priority: ImageLoadPriority
        var isCancelled = false
    }
    private let state: Mutex<State>

    /// Creates a token whose first ``cancel()`` runs `cancel` and whose ``priority``
    /// changes run `setPriority`.
    public init(
        url: URL?, priority: ImageLoadPriority = .normal, cancel: (@Sendable () -> Void)? = nil,
        setPriority: (@Sendable (ImageLoadPriority) -> Void)? = nil
    ) {
        self.url = url
        state = Mutex(State(cancelActions: cancel.map { [$0] } ?? [], priorityAction: setPriority, priority: priority))
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// This caller's priority. Setting it while the transfer is queued moves the
    /// transfer in the loader's queue (a shared transfer runs at its callers' highest
    /// priority); loaders without a queue ignore it.
    public var priority: ImageLoadPriority {
        get { state.withLock { $0.priority } }
        set {
            let action = state.withLock { s -> (@Sendable (ImageLoadPriority) -> Void)? in
                guard s.priority != newValue, !s.isCancelled else { return nil }
                s.priority = newValue
                return s.priorityAction
            }
            action?(newValue)
        }
    }

    /// Cancels this caller's load. Safe from any thread, any number of times.
    public func cancel() {
        let actions = state.withLock { s -> [@Sendable () -> Void] in
            guard !s.isCancelled else { return [] }
            s.isCancelled = true
            s.priorityAction = nil
            defer { s.cancelActions = [] }
            return s.cancelActions
        }
        for action in actions { action() }
    }

    /// Adds what a ``cancel()`` does; runs it at once if the token is already cancelled.
    public func onCancel(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if !s.isCancelled { s.cancelActions.append(action) }
            return s.isCancelled
        }
        if runNow { action() }
    }

    /// Sets what a ``priority`` change does (replacing any earlier action).
    public func onPriorityChange(_ action: @escaping @Sendable (ImageLoadPriority) -> Void) {
        state.withLock { s in if !s.isCancelled { s.priorityAction = action } }
    }
}

// MARK: - ImageLoadObserver

/// What the caller of ``ImageLoader/loadImage(with:options:context:observer:)`` hears
/// while the load runs, and the token it steers the load with.
///
/// The closures run where the loader calls them (for ``ImageDownloader``: progress on the
/// transfer's event loop, partial images on a task of the load, between the decodes of
/// the bytes so far on its decode queue), so they must return at once: hand anything
/// longer to a queue or a stream. They are never called under a library lock.
public struct ImageLoadObserver: Sendable {
    /// Bytes received so far and expected (−1 when unknown), throttled by the loader.
    public var progress: ImageLoaderProgress?
    /// Partial images of a progressive load (``WebImageOptions/progressiveLoad``):
    /// responses with ``ImageLoadResponse/isFinished`` `false`.
    public var partialImage: (@Sendable (ImageLoadResponse) -> Void)?
    /// The caller's handle: priority changes and ``ImageLoadToken/cancel()`` reach the load.
    public var token: ImageLoadToken?
    /// The bytes received so far, with every chunk while the body is read (for
    /// ``ImageDownloader``, on the transfer's event loop): what stage B's incremental decoder
    /// reads (``BodyProgress``) when the manager fetches the body and decodes it itself.
    package var bodySoFar: (@Sendable (Data) -> Void)? = nil
    /// A data-only caller's hold on the finished body while it decodes it itself: until it is
    /// released, a request for the same body joins the transfer instead of fetching again.
    package var bodyLease: BodyLease? = nil

    /// An observer; every part is optional.
    public init(
        progress: ImageLoaderProgress? = nil, partialImage: (@Sendable (ImageLoadResponse) -> Void)? = nil,
        token: ImageLoadToken? = nil
    ) {
        self.progress = progress
        self.partialImage = partialImage
        self.token = token
    }
}

// MARK: - ImageLoadResponse

/// What a loader delivers: a partial image while progressive bytes arrive, then the
/// final image with its data.
public struct ImageLoadResponse: Sendable {
    /// The URL that was requested.
    public var url: URL
    /// The image: partial when ``isFinished`` is `false`. `nil` only when the request
    /// asked for ``WebImageOptions/avoidDecodeImage``.
    public var image: DecodedImage?
    /// The whole body, on the final response; `nil` on partial ones.
    public var data: Data?
    /// `false` for partial progressive images; `true` exactly once, last.
    public var isFinished: Bool
    /// Status, headers and validators for http(s) loads; `nil` for `file:` and `data:`.
    public var http: HTTPResponseInfo?
    /// Network attempts the transfer took (``RetryPolicy``); 1 without retries, and for
    /// `file:` and `data:`.
    public var attempts: Int

    /// Creates a response.
    public init(
        url: URL, image: DecodedImage?, data: Data?, isFinished: Bool, http: HTTPResponseInfo? = nil, attempts: Int = 1
    ) {
        self.url = url
        self.image = image
        self.data = data
        self.isFinished = isFinished
        self.http = http
        self.attempts = attempts
    }
}

extension ImageLoadResponse {
    /// Whether the transfer answered 304 Not Modified, which has no body of its own: an
    /// answer to a conditional request, which the caller turns into its stored copy.
    var isNotModified: Bool { http?.statusCode == 304 }
}

// MARK: - ImageLoadPriority

/// How urgent a load is: queued downloads start highest first, then in the
/// downloader's ``DownloaderConfig/executionOrder``.
///
/// Set it with ``WebImageOptions/lowPriority`` / ``WebImageOptions/highPriority``
/// when a load starts, or change it while the load is queued or running through
/// ``ImageLoadToken/priority`` or ``ImageTask/priority``. A transfer shared by several
/// callers runs at the highest priority among them.
public enum ImageLoadPriority: Int, Comparable, Sendable, CaseIterable {
    case veryLow = -2, low = -1, normal = 0, high = 1, veryHigh = 2

    public static func < (lhs: ImageLoadPriority, rhs: ImageLoadPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
