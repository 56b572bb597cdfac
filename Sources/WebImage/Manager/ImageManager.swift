import Foundation
import Synchronization

/// Loads images through a cache and a loader: SDWebImage's `SDWebImageManager`.
///
/// One pipeline with three ways in, all `async` (``loadImage(with:options:context:)``,
/// ``imageTask(with:options:context:)``, ``loadImageStream(with:options:context:)``);
/// WebImageCompat's view layer (`WebImageTarget`) and callback form (SDWebImage's
/// `loadImage(with:options:context:progress:completed:)`, returning a `CombinedOperation`)
/// are adapters over the same ``ImageTask``:
///
/// ```swift
/// let manager = ImageManager(
///     memoryCache: MemoryCache(totalCostLimit: 256 << 20), diskCache: DiskCache(namespace: "app"))
/// let response = try await manager.loadImage(with: url)
/// ```
///
/// The manager is a façade: it makes a load's keys (``cacheKey(for:context:)``, the key
/// filter), checks the failed-URL block list, answers a memory hit, and hands the rest to
/// its pipeline (`ImagePipeline`), whose stages are `async` functions read top to bottom in
/// `Pipeline/ImagePipeline.swift`: cache query (memory, then disk), for a thumbnail or
/// transformed key the original's cached data, download, transform, store, deliver.
///
/// - **Where the work runs**: the cache key filter, the block list and a memory hit run
///   on the calling thread or task. The rest runs on the load's task (the caller's own
///   for ``loadImage(with:options:context:)``, a new one otherwise), which only decides and
///   suspends: a disk read on the calling task when the kernel has the file cached, else
///   on the cache's I/O pool; the network on AsyncHTTPClient's event loops; the decode of a
///   download in stage B (`ImageStage`) on the downloader's ``DownloaderConfig/decodeQueue``
///   (a loader that is no ``ImageDownloader`` decodes where it says), a disk hit's on the
///   cache's; the transformer, ``ImageManagerDelegate/transformDownloadedImage(_:for:)``, the
///   cache serializer and lazy decodes of cached originals on ``decodeQueue``; disk writes
///   on the disk cache's I/O queue, in the background unless
///   ``WebImageOptions/waitStoreCache``. A cache miss pays a hop to the network and back,
///   then one to the decode queue and back. The manager owns no queue; its bookkeeping
///   (settings, running loads, failed URLs) is behind `Mutex`es held only to read or
///   change it, never while any of this runs.
/// - **Delivery**: WebImageCompat's view layer's and callback form's results and progress run
///   on the load's callback queue (WebImageCompat's `WebImageContext.callbackQueue`), by
///   default WebImageCompat's `ImageManager.callbackQueue`, one serial queue it keeps for
///   every manager's callbacks. Only ``WebImageOptions/queryMemorySync`` (and ``WebImageOptions/queryDiskDataSync``,
///   which also reads and decodes the disk on the calling thread) completes before
///   `loadImage` returns; the `async` API answers a memory hit on the calling task.
/// - **Failed URLs**: a load that fails in a way the loader calls permanent (a 404, bad
///   data) puts the URL on a block list; later loads fail with
///   ``WebImageCodecs/WebImageError/Code/blackListed`` without a request unless
///   ``WebImageOptions/retryFailed`` is given, and a retried success takes it off.
///   Entries expire and the list is bounded (``FailedURLPolicy``). Transient failures
///   (timeouts, lost connections, 408, 429, 500, 502–504), cancellations, refusals of
///   the address policy (``WebImageCodecs/WebImageError/Code/forbiddenAddress``) and of the
///   downloader itself (``WebImageCodecs/WebImageError/Code/invalidDownloadOperation``: shut
///   down, a request modifier's veto) never enter it, whatever the loader or delegate say.
/// - **refreshCached**: the cached image is delivered first, then revalidated with the
///   `ETag` / `Last-Modified` stored with its disk entry; 304 ends the load without a
///   second result (and renews the entry's stored metadata by its headers), new data
///   gives a second result. See `ImagePipeline.swift`.
public final class ImageManager: Sendable {
    /// The shared manager: the shared cache (namespace `"default"` in
    /// ``DiskCache/defaultDirectory(namespace:)``, WebImageCompat's `ImageCache.shared`) and
    /// ``ImageLoadersManager/shared`` (which loads http, https and data URLs; `file:` is
    /// off, see ``LoaderSchemes``).
    public static let shared = ImageManager(cache: LibraryCache.shared, loader: ImageLoadersManager.shared)

    /// The cache loads query and store in, unless their context names another.
    public let imageCache: any ImageCaching
    /// The loader loads download with, unless their context names another.
    public let imageLoader: any ImageLoader
    /// Where the user hooks (transformer, delegate, serializer) and lazy decodes of cached
    /// originals run. Default ``WebImageCodecs/DecodeQueue/shared``.
    public let decodeQueue: DecodeQueue

    /// The manager's settings, which its pipeline reads its hooks from where each applies.
    final class Settings: Sendable {
        struct Values {
            weak var delegate: (any ImageManagerDelegate)?
            var transformer: (any ImageTransformer)?
            var cacheKeyFilter: WebImageContext.CacheKeyFilter?
            var cacheSerializer: WebImageContext.CacheSerializer?
            var httpCachePolicy = HTTPCachePolicy.ignoreHeaders
        }
        let values = Mutex(Values())

        var delegate: (any ImageManagerDelegate)? { values.withLock { $0.delegate } }
        var cacheSerializer: WebImageContext.CacheSerializer? { values.withLock { $0.cacheSerializer } }
    }
    private let settings = Settings()
    let failedURLs: FailedURLSet
    /// Where every load that is no memory hit runs.
    let pipeline: ImagePipeline<LibraryPreset>
    /// Loads not ended yet: what ``cancelAll()`` reaches (with the pipeline's revalidations).
    private let running = Mutex<[ObjectIdentifier: ImageTask]>([:])

    /// Creates a manager over `cache` and `loader`.
    ///
    /// - Parameters:
    ///   - cache: where images are looked up and stored; `nil` (the default) is the shared
    ///     cache ``shared`` uses.
    ///   - loader: what fetches a miss; ``ImageLoadersManager/shared`` by default.
    ///   - decodeQueue: where the user hooks and lazy decodes run (see ``decodeQueue``).
    ///   - failedURLPolicy: how long failed URLs stay blocked and how many are kept
    ///     (default one hour, 10,000 URLs).
    public convenience init(
        cache: (any ImageCaching)? = nil, loader: any ImageLoader = ImageLoadersManager.shared,
        decodeQueue: DecodeQueue = .shared, failedURLPolicy: FailedURLPolicy = FailedURLPolicy()
    ) {
        self.init(cache: cache ?? LibraryCache.shared, loader: loader, decodeQueue: decodeQueue,
                  failedURLs: FailedURLSet(policy: failedURLPolicy))
    }

    /// Creates a manager whose cache is the two tiers given: decoded images in
    /// `memoryCache`, encoded data on `diskCache` (either `nil`: that tier is not used).
    /// Disk hits are decoded, and images stored without data encoded, on `decodeQueue`
    /// with ``WebImageCodecs/ImageCodersManager/shared``.
    ///
    /// - Parameters:
    ///   - memoryCache: where decoded images are kept, weighed by ``WebImageCodecs/DecodedImage/cost``;
    ///     by default a new one with the shared cache's limits (``MemoryCache/withDefaultLimits()``).
    ///   - diskCache: where the downloaded bytes (and the results kept apart from them) are kept.
    ///   - loader: what fetches a miss; ``ImageLoadersManager/shared`` by default.
    ///   - decodeQueue: where the user hooks, lazy decodes and the cache's decodes run.
    ///   - failedURLPolicy: how long failed URLs stay blocked and how many are kept.
    public convenience init(
        memoryCache: MemoryCache<String, DecodedImage>? = .withDefaultLimits(), diskCache: DiskCache?,
        loader: any ImageLoader = ImageLoadersManager.shared, decodeQueue: DecodeQueue = .shared,
        failedURLPolicy: FailedURLPolicy = FailedURLPolicy()
    ) {
        let cache = LibraryCache(memory: memoryCache, disk: diskCache, decodeQueue: decodeQueue)
        self.init(cache: cache, loader: loader, decodeQueue: decodeQueue, failedURLs: FailedURLSet(policy: failedURLPolicy))
    }

    /// Creates a manager with its own block list (tests pass one with their clock).
    init(cache: any ImageCaching, loader: any ImageLoader, decodeQueue: DecodeQueue = .shared, failedURLs: FailedURLSet) {
        imageCache = cache
        imageLoader = loader
        self.failedURLs = failedURLs
        self.decodeQueue = decodeQueue
        pipeline = ImagePipeline(LibraryPreset(decodeQueue: decodeQueue, failedURLs: failedURLs, settings: settings))
    }

    // MARK: Settings

    /// Hooks into the manager's decisions; kept weakly. Default `nil`.
    public var delegate: (any ImageManagerDelegate)? {
        get { settings.delegate }
        set { settings.values.withLock { $0.delegate = newValue } }
    }

    /// The transformer for loads whose context names none. Default `nil`.
    public var transformer: (any ImageTransformer)? {
        get { settings.values.withLock { $0.transformer } }
        set { settings.values.withLock { $0.transformer = newValue } }
    }

    /// Turns URLs into cache keys for loads whose context names no filter; returning
    /// `nil` means "do not cache". Default `nil`: the URL's absolute string.
    public var cacheKeyFilter: WebImageContext.CacheKeyFilter? {
        get { settings.values.withLock { $0.cacheKeyFilter } }
        set { settings.values.withLock { $0.cacheKeyFilter = newValue } }
    }

    /// Chooses the disk bytes of downloaded images for loads whose context names no
    /// serializer. Default `nil`: the downloaded data.
    public var cacheSerializer: WebImageContext.CacheSerializer? {
        get { settings.cacheSerializer }
        set { settings.values.withLock { $0.cacheSerializer = newValue } }
    }

    /// Whether cached images follow the HTTP caching headers they came with, for loads
    /// whose context names no policy. Default ``HTTPCachePolicy/ignoreHeaders``
    /// (SDWebImage's behaviour); `no-store` responses are never written to disk either way.
    /// See `ImagePipeline.swift`.
    public var httpCachePolicy: HTTPCachePolicy {
        get { settings.values.withLock { $0.httpCachePolicy } }
        set { settings.values.withLock { $0.httpCachePolicy = newValue } }
    }

    // MARK: Keys

    /// The cache key of `url` under `context`: the key filter's answer (or the absolute
    /// string), then the thumbnail suffix, then the transformer's key
    /// (``CacheKey/transformed(_:suffix:)``). `nil` without a URL or when the filter
    /// says not to cache. The key of a load without ``WebImageOptions/lazyAnimatedImage``;
    /// ``cacheKey(for:options:context:)`` gives any load's.
    public func cacheKey(for url: URL?, context: WebImageContext = WebImageContext()) -> String? {
        cacheKey(for: url, options: [], context: context)
    }

    /// The cache key a load of `url` with `options` stores its result under:
    /// ``cacheKey(for:context:)``, then for ``WebImageOptions/lazyAnimatedImage``
    /// ``lazyAnimationKeySuffix``, so lazy and eager results never stand in for each other.
    public func cacheKey(for url: URL?, options: WebImageOptions, context: WebImageContext = WebImageContext()) -> String? {
        originalCacheKey(for: url, context: context).map { cacheKey(original: $0, options: options, context: context) }
    }

    /// The result key of a load whose original key (the key filter's answer) is `original`:
    /// a caller that has the original key already derives the result key from it instead of
    /// running the filter, a user closure, a second time (preparing a load, the callback
    /// form's synchronous hit).
    func cacheKey(original: String, options: WebImageOptions, context: WebImageContext) -> String {
        Self.cacheKey(original: original, transformer: context.imageTransformer ?? transformer, options: options, context: context)
    }

    /// ``cacheKey(original:options:context:)`` with the load's transformer given, so a load
    /// that reads the manager's once keys and transforms with the same one.
    static func cacheKey(
        original: String, transformer: (any ImageTransformer)?, options: WebImageOptions, context: WebImageContext
    ) -> String {
        var key = context.memoryKey(forKey: original)
        if let transformer { key = CacheKey.transformed(key, suffix: transformer.transformerKey) }
        return options.contains(.lazyAnimatedImage) ? CacheKey.transformed(key, suffix: lazyAnimationKeySuffix) : key
    }

    /// The last suffix of the keys of ``WebImageOptions/lazyAnimatedImage`` loads.
    public static let lazyAnimationKeySuffix = "LazyAnimatedImage"

    /// The key of the full-size, untransformed image of `url`.
    func originalCacheKey(for url: URL?, context: WebImageContext) -> String? {
        guard let url else { return nil }
        guard let filter = context.cacheKeyFilter ?? cacheKeyFilter else { return url.absoluteString }
        return filter(url)
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

    /// Cancels every running load (each ends with ``WebImageCodecs/WebImageError/Code/cancelled``) and
    /// every background revalidation (``HTTPCachePolicy/respectHeaders``'
    /// `stale-while-revalidate`).
    public func cancelAll() {
        for task in running.withLock({ Array($0.values) }) { task.cancel() }
        pipeline.cancelRevalidations()
    }

    /// Counts `task` as running until it ends.
    func register(_ task: ImageTask) {
        let id = ObjectIdentifier(task)
        running.withLock { $0[id] = task }
        task.setOnEnd { [weak self] in self?.running.withLock { _ = $0.removeValue(forKey: id) } }
    }
}

// MARK: - HTTPCachePolicy

/// Whether cached images follow the HTTP caching headers they were downloaded with.
public enum HTTPCachePolicy: Sendable, Hashable {
    /// SDWebImage's behaviour, the default: a cached image is used until the disk cache
    /// expires it (``DiskCache/Config``'s age and size limits); headers are stored but
    /// not obeyed. `Cache-Control: no-store` is still honoured: such a response is never
    /// written to disk.
    case ignoreHeaders
    /// RFC 9111 freshness: a fresh entry (`max-age`, else `Expires` − `Date`, minus `Age`)
    /// is used with no request; a stale one, and any `no-cache` one, is revalidated with
    /// a conditional request before use (304 refreshes it, no second image);
    /// `stale-while-revalidate` serves the stale image at once and revalidates in the
    /// background (new bytes replace the stored original undecoded, and the next load
    /// decodes them; revalidations of one original share one request); `stale-if-error`
    /// serves it when revalidation fails within that window (no answer, or a 5xx; a 4xx
    /// is the source's answer and fails the load, RFC 5861 §4);
    /// `must-revalidate` forbids both. Entries stored without caching headers stay fresh.
    case respectHeaders
}

// MARK: - ImageManagerDelegate

/// Hooks into an ``ImageManager``'s decisions: SDWebImage's `SDWebImageManagerDelegate`.
///
/// Every method has a default implementation that keeps the manager's normal behaviour,
/// so implement only what you need. The manager keeps its delegate weakly. The decisions
/// (``shouldDownloadImage(for:)``, ``shouldBlockFailedURL(_:error:)``) run on the
/// load's task and must return quickly; ``transformDownloadedImage(_:for:)``
/// runs on the manager's ``ImageManager/decodeQueue``, possibly several at once for different loads. None
/// runs while a library lock is held.
public protocol ImageManagerDelegate: AnyObject, Sendable {
    /// Whether to download `url` after a cache miss. Returning `false` completes the load
    /// with no image and no error. Default `true`.
    func shouldDownloadImage(for url: URL) -> Bool

    /// Whether a failed `url` goes into the failed-URL block list. `nil`, the default,
    /// asks the loader (``ImageLoader/shouldBlockFailedURL(_:error:)``).
    func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool?

    /// Replaces a downloaded image before it is transformed and cached; `nil`, the
    /// default, keeps it. A replaced image is cached without data (the cache encodes it),
    /// since the downloaded bytes no longer describe it. Runs off the callback queue.
    func transformDownloadedImage(_ image: DecodedImage, for url: URL) -> DecodedImage?
}

extension ImageManagerDelegate {
    public func shouldDownloadImage(for url: URL) -> Bool { true }
    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool? { nil }
    public func transformDownloadedImage(_ image: DecodedImage, for url: URL) -> DecodedImage? { nil }
}
