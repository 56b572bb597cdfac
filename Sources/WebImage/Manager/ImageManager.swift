import Dispatch
import Foundation
import Logging
import Synchronization

/// Loads images through a cache and a loader: SDWebImage's `SDWebImageManager`.
///
/// One pipeline with two entry points, a callback form returning a ``CombinedOperation``
/// and `async` forms (see `ImageManager+Async.swift`):
///
/// ```swift
/// let manager = ImageManager(cache: ImageCache(namespace: "app"), loader: ImageLoadersManager.shared)
/// let operation = manager.loadImage(with: url, options: [.retryFailed]) { result in
///     if let image = result.image { show(image) }
/// }
/// operation.cancel()
/// let result = try await manager.loadImage(with: url)
/// ```
///
/// The stages: cache key (``cacheKey(for:context:)``), failed-URL block list, cache query
/// (memory, then disk), for a thumbnail or transformed key a second query of the
/// original's disk data, download, transform, store, deliver.
///
/// - **Threads**: the stages run on the manager's own pipeline queue, disk I/O on
///   ``BlockingIOPool/shared``, network on AsyncHTTPClient's event loops, decoding and
///   the user hooks that can be slow (``ImageManagerDelegate/transformDownloadedImage(_:for:)``,
///   the transformer, the cache serializer) on ``DecodeQueue/shared``. The cache key
///   filter runs on the calling thread, when the load starts. Results and progress are
///   only delivered on the load's ``WebImageContext/callbackQueue``, by default
///   ``callbackQueue``, a serial queue of this manager. A memory hit completes
///   synchronously, before `loadImage` returns, only with ``WebImageOptions/queryMemorySync``
///   (or ``WebImageOptions/queryDiskDataSync``, which also reads the disk on the calling
///   thread); the `async` API answers a memory hit on the calling task.
/// - **Failed URLs**: a load that fails in a way the loader calls permanent (a 404, bad
///   data) puts the URL on a block list; later loads fail with
///   ``WebImageError/Code/blackListed`` without a request unless
///   ``WebImageOptions/retryFailed`` is given, and a retried success takes it off.
///   Entries expire and the list is bounded (``FailedURLPolicy``). Transient failures
///   (timeouts, lost connections, 408, 429, 500, 502–504), cancellations and refusals of
///   the address policy (``WebImageError/Code/forbiddenAddress``) never enter it, whatever
///   the loader or delegate say.
/// - **refreshCached**: the cached image is delivered first, then revalidated with the
///   `ETag` / `Last-Modified` stored with its disk entry; 304 ends the load without a
///   second callback, new data gives a second callback. See `ImageManager+Refresh.swift`.
public final class ImageManager: Sendable {
    /// The shared manager: ``ImageCache/shared`` and ``ImageLoadersManager/shared``.
    public static let shared = ImageManager(cache: ImageCache.shared, loader: ImageLoadersManager.shared)

    /// The cache loads query and store in, unless their context names another.
    public let imageCache: any ImageCaching
    /// The loader loads download with, unless their context names another.
    public let imageLoader: any ImageLoader
    /// The serial queue callbacks run on when a load's context names none.
    public let callbackQueue: DispatchQueue
    /// Where the pipeline's stages run between the cache, the loader and the decode
    /// queue: short bookkeeping only (user hooks run on ``DecodeQueue/shared``, I/O on
    /// ``BlockingIOPool/shared``), so one serial queue keeps each load's results in order.
    let workQueue = DispatchQueue(label: "WebImage.ImageManager.pipeline")

    private struct Settings {
        weak var delegate: (any ImageManagerDelegate)?
        var transformer: (any ImageTransformer)?
        var cacheKeyFilter: WebImageContext.CacheKeyFilter?
        var cacheSerializer: WebImageContext.CacheSerializer?
        var httpCachePolicy = HTTPCachePolicy.ignoreHeaders
    }
    private let settings = Mutex(Settings())
    let failedURLs: FailedURLSet
    private let running = Mutex<[ObjectIdentifier: CombinedOperation]>([:])
    static let logger = Logger(label: "WebImage.ImageManager")

    /// Creates a manager over `cache` and `loader`.
    ///
    /// - Parameters:
    ///   - callbackQueue: where callbacks run by default; `nil` creates a serial queue for
    ///     this manager.
    ///   - failedURLPolicy: how long failed URLs stay blocked and how many are kept
    ///     (default one hour, 10,000 URLs).
    public convenience init(
        cache: any ImageCaching = ImageCache.shared, loader: any ImageLoader = ImageLoadersManager.shared,
        callbackQueue: DispatchQueue? = nil, failedURLPolicy: FailedURLPolicy = FailedURLPolicy()
    ) {
        self.init(cache: cache, loader: loader, callbackQueue: callbackQueue, failedURLs: FailedURLSet(policy: failedURLPolicy))
    }

    /// Creates a manager with its own block list (tests pass one with their clock).
    init(cache: any ImageCaching, loader: any ImageLoader, callbackQueue: DispatchQueue?, failedURLs: FailedURLSet) {
        imageCache = cache
        imageLoader = loader
        self.failedURLs = failedURLs
        self.callbackQueue = callbackQueue ?? DispatchQueue(label: "WebImage.ImageManager.callbacks")
    }

    // MARK: Settings

    /// Hooks into the manager's decisions; kept weakly. Default `nil`.
    public var delegate: (any ImageManagerDelegate)? {
        get { settings.withLock { $0.delegate } }
        set { settings.withLock { $0.delegate = newValue } }
    }

    /// The transformer for loads whose context names none. Default `nil`.
    public var transformer: (any ImageTransformer)? {
        get { settings.withLock { $0.transformer } }
        set { settings.withLock { $0.transformer = newValue } }
    }

    /// Turns URLs into cache keys for loads whose context names no filter; returning
    /// `nil` means "do not cache". Default `nil`: the URL's absolute string.
    public var cacheKeyFilter: WebImageContext.CacheKeyFilter? {
        get { settings.withLock { $0.cacheKeyFilter } }
        set { settings.withLock { $0.cacheKeyFilter = newValue } }
    }

    /// Chooses the disk bytes of downloaded images for loads whose context names no
    /// serializer. Default `nil`: the downloaded data.
    public var cacheSerializer: WebImageContext.CacheSerializer? {
        get { settings.withLock { $0.cacheSerializer } }
        set { settings.withLock { $0.cacheSerializer = newValue } }
    }

    /// Whether cached images follow the HTTP caching headers they came with, for loads
    /// whose context names no policy. Default ``HTTPCachePolicy/ignoreHeaders``
    /// (SDWebImage's behaviour); `no-store` responses are never written to disk either way.
    /// See `ImageManager+Freshness.swift`.
    public var httpCachePolicy: HTTPCachePolicy {
        get { settings.withLock { $0.httpCachePolicy } }
        set { settings.withLock { $0.httpCachePolicy = newValue } }
    }

    // MARK: Keys

    /// The cache key of `url` under `context`: the key filter's answer (or the absolute
    /// string), then the thumbnail suffix, then the transformer's key
    /// (``CacheKey/transformed(_:suffix:)``). `nil` without a URL or when the filter
    /// says not to cache. The key of a load without ``WebImageOptions/lazyAnimatedImage``;
    /// ``cacheKey(for:options:context:)`` gives any load's.
    public func cacheKey(for url: URL?, context: WebImageContext = WebImageContext()) -> String? {
        guard let original = originalCacheKey(for: url, context: context) else { return nil }
        let source = thumbnailKey(original, context: context)
        guard let transformer = context.imageTransformer ?? transformer else { return source }
        return CacheKey.transformed(source, suffix: transformer.transformerKey)
    }

    /// The cache key a load of `url` with `options` stores its result under:
    /// ``cacheKey(for:context:)``, then for ``WebImageOptions/lazyAnimatedImage``
    /// ``lazyAnimationKeySuffix``, so lazy and eager results never stand in for each other.
    public func cacheKey(for url: URL?, options: WebImageOptions, context: WebImageContext = WebImageContext()) -> String? {
        guard let key = cacheKey(for: url, context: context) else { return nil }
        return options.contains(.lazyAnimatedImage) ? CacheKey.transformed(key, suffix: Self.lazyAnimationKeySuffix) : key
    }

    /// The last suffix of the keys of ``WebImageOptions/lazyAnimatedImage`` loads.
    public static let lazyAnimationKeySuffix = "LazyAnimatedImage"

    /// The key of the full-size, untransformed image of `url`.
    func originalCacheKey(for url: URL?, context: WebImageContext) -> String? {
        guard let url else { return nil }
        guard let filter = context.cacheKeyFilter ?? cacheKeyFilter else { return url.absoluteString }
        return filter(url)
    }

    private func thumbnailKey(_ key: String, context: WebImageContext) -> String {
        guard let size = context.thumbnailPixelSize else { return key }
        return CacheKey.thumbnailed(key, pixelSize: size, preserveAspectRatio: context.preserveAspectRatio)
    }

    // MARK: Failed URLs

    /// Whether `url` is on the failed-URL block list.
    public func isFailedURL(_ url: URL) -> Bool { failedURLs.contains(url) }

    /// Takes `url` off the failed-URL block list.
    public func removeFailedURL(_ url: URL) { failedURLs.remove(url) }

    /// Empties the failed-URL block list.
    public func removeAllFailedURLs() { failedURLs.removeAll() }

    // MARK: Running loads

    /// Whether any load of this manager has not ended yet.
    public var isRunning: Bool { running.withLock { !$0.isEmpty } }

    /// How many loads of this manager have not ended yet.
    public var runningOperationCount: Int { running.withLock { $0.count } }

    /// Cancels every running load; each completion gets ``WebImageError/Code/cancelled``.
    public func cancelAll() {
        for operation in running.withLock({ Array($0.values) }) { operation.cancel() }
    }

    // MARK: Loading

    /// Loads `url`: from the caches, else from the loader; transforms and stores it.
    ///
    /// `completed` runs on the context's callback queue (default ``callbackQueue``) with
    /// any partial images (``WebImageOptions/progressiveLoad``, `isFinished == false`),
    /// then the final result or error. With ``WebImageOptions/refreshCached`` a cached
    /// image may be followed by a second, refreshed one. With
    /// ``WebImageOptions/queryMemorySync`` a memory hit calls `completed` on this thread
    /// before the call returns. `progress` gets bytes received and expected.
    ///
    /// - Returns: the operation; cancelling it delivers ``WebImageError/Code/cancelled`` once.
    @discardableResult
    public func loadImage(
        with url: URL?,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext(),
        progress: ImageLoaderProgress? = nil,
        completed: @escaping @Sendable (ImageLoadResult) -> Void
    ) -> CombinedOperation {
        startLoad(with: url, options: options, context: context, progress: progress) { result, _ in
            if let result { completed(result) }
        }
    }

    /// The common start of every entry point; `handler` also learns which result is last.
    func startLoad(
        with url: URL?, options: WebImageOptions, context: WebImageContext,
        progress: ImageLoaderProgress?, handler: @escaping CombinedOperation.Handler
    ) -> CombinedOperation {
        let queue = context.callbackQueue ?? callbackQueue
        let operation = CombinedOperation(url: url, callbackQueue: queue, priority: options.loadPriority, handler: handler)
        guard let url, !url.absoluteString.isEmpty else {
            operation.deliver(.failure(WebImageError(.invalidURL, "The image URL is empty"), url: url), isLast: true, inline: false)
            return operation
        }
        if !options.contains(.retryFailed), let cause = failedURLs.entry(for: url) {
            WebImageMetrics.blockedLoads.increment()
            let error = WebImageError(
                .blackListed, "\(url.redactedForLog) failed before (\(cause.code.name): \(cause.message)); pass retryFailed to try it again",
                underlying: cause)
            operation.deliver(.failure(error, url: url), isLast: true, inline: false)
            return operation
        }
        let original = originalCacheKey(for: url, context: context)
        let transformer = context.imageTransformer ?? transformer
        var load = ManagedLoad(
            url: url, options: options, context: context,
            key: cacheKey(for: url, options: options, context: context), originalKey: original,
            sourceKey: original.map { thumbnailKey($0, context: context) }, transformer: transformer,
            cache: context.imageCache ?? imageCache, loader: context.imageLoader ?? imageLoader,
            queue: workQueue, progress: Self.delivering(progress, on: queue), operation: operation)
        load.httpCachePolicy = context.httpCachePolicy ?? httpCachePolicy
        let id = ObjectIdentifier(operation)
        running.withLock { $0[id] = operation }
        operation.setOnEnd { [weak self] in self?.running.withLock { _ = $0.removeValue(forKey: id) } }
        queryCache(load)
        return operation
    }

    /// `progress` moved to the caller's callback queue (loaders report on the pipeline's).
    private static func delivering(_ progress: ImageLoaderProgress?, on queue: DispatchQueue) -> ImageLoaderProgress? {
        guard let progress else { return nil }
        return { received, expected in queue.async { progress(received, expected) } }
    }
}
