import Foundation

/// One ``ImageManager`` load, decided once before any stage runs: its keys, its cache and
/// loader, and what each stage reads from it: the bits and the context its loader is
/// handed, its two cache queries, where its results are stored. The stages read fields;
/// none of them derives an option or a context again.
///
/// Loaders and caches take ``WebImageOptions`` and ``WebImageContext`` too (as SDWebImage
/// passes one `SDWebImageContext` to all), and the request hands each its own subset:
///
/// - **The loader** gets the ``loaderBits`` of the load's options, and the load's context
///   with the decode options worked out here (the thumbnail size, the scale the original's
///   key names, the scale-down budget of ``WebImageOptions/scaleDownLargeImages``) and,
///   on a revalidation only, the validators (``loaderContext(validators:)``). A subset, not
///   every bit: what a custom loader sees does not change with manager-only bits such as
///   `retryFailed`, and the conditional-request bits (``WebImageOptions/useHTTPCache``)
///   come from the manager's revalidation paths, never from a caller's load.
/// - **A cache query** gets the ``cacheQueryBits``, ``WebImageOptions/queryMemoryOnly`` or
///   ``WebImageOptions/queryDiskOnly`` from the cache type it looks in, and the context with
///   the scale-down budget and the scale the original's key names; the thumbnail size only
///   when it decodes the original's data for a thumbnail (``originalQuery``).
///
/// Built on the thread that starts the load (``ImageManager/imageTask(with:options:context:)``
/// and the other ways in), from the key filter's answer, which each way in asks for once
/// per load (the filter is a user closure) and also uses for its memory hit.
///
/// A class, not a struct: it holds four contexts, and each closure that captured it and
/// each stage that kept it across an `await` held a copy of them all. With 1,000 loads in
/// flight those copies cost a cold round about 1,600 of its 28,000 page faults.
final class ImageRequest: Sendable {
    let url: URL
    let options: WebImageOptions
    let context: WebImageContext
    /// The key of the result (thumbnail and transformer suffixes included); `nil` when
    /// the cache key filter says not to cache.
    let key: String?
    /// The key of the full-size, untransformed data (the filtered URL).
    let originalKey: String?
    /// The key the transformer's input is known by (thumbnail suffix, no transformer suffix).
    let sourceKey: String?
    let transformer: (any ImageTransformer)?
    let cache: any ImageCaching
    let loader: any ImageLoader
    /// Whether cached entries follow their HTTP caching headers.
    let httpCachePolicy: HTTPCachePolicy

    /// Whether the result is derived from the original (a thumbnail or a transform), so
    /// its pixels match no encoded data and it is kept apart from the original.
    let isDerived: Bool
    /// Whether animations load lazily (``WebImageOptions/lazyAnimatedImage``).
    var isLazy: Bool { options.contains(.lazyAnimatedImage) }
    /// Whether the result has a key of its own, apart from the original's data: derived,
    /// or lazy (a lazy image must never be found under the key eager loads use). Such a
    /// load stores the downloaded data under ``originalKey`` and, after a miss of its own
    /// key, makes its result from the data cached there.
    var isKeptApart: Bool { isDerived || isLazy }

    /// The options the loader is handed: the ``loaderBits`` of the load's.
    let loaderOptions: WebImageOptions
    /// The context the loader is handed, without validators (``loaderContext(validators:)``).
    private let baseLoaderContext: WebImageContext
    /// The query of the result's own ``key``.
    let resultQuery: CacheQuery
    /// The query of the original's data that a result kept apart is made from after its own
    /// key missed: the original's cache types, and the thumbnail size to decode to.
    let originalQuery: CacheQuery

    /// What one cache query is handed.
    struct CacheQuery: Sendable {
        let options: WebImageOptions
        let context: WebImageContext
    }

    /// The bits a loader reads from a manager load: queueing, the transfer (cookies, TLS)
    /// and the decode.
    static let loaderBits: WebImageOptions = [
        .lowPriority, .highPriority, .progressiveLoad, .handleCookies, .allowInvalidSSLCertificates,
        .scaleDownLargeImages, .decodeFirstFrameOnly, .avoidDecodeImage, .lazyAnimatedImage,
    ]

    /// The bits a cache query reads from a manager load.
    static let cacheQueryBits: WebImageOptions = [
        .decodeFirstFrameOnly, .queryMemorySync, .queryDiskDataSync, .queryMemoryData, .queryMemoryDataSync,
    ]

    /// The request of a load of `url`, its keys from `originalKey` (the key filter's answer,
    /// `nil` for "do not cache"), its defaults from `manager`.
    init(url: URL, options: WebImageOptions, context: WebImageContext, originalKey: String?, manager: ImageManager) {
        self.url = url
        self.options = options
        self.context = context
        self.originalKey = originalKey
        // The manager's transformer is read once: the result's key and its transform agree
        // even when it is replaced while the load starts.
        let transformer = context.imageTransformer ?? manager.transformer
        self.transformer = transformer
        key = originalKey.map { ImageManager.cacheKey(original: $0, transformer: transformer, options: options, context: context) }
        sourceKey = originalKey.map { context.memoryKey(forKey: $0) }
        cache = context.imageCache ?? manager.imageCache
        loader = context.imageLoader ?? manager.imageLoader
        httpCachePolicy = context.httpCachePolicy ?? manager.httpCachePolicy
        isDerived = context.thumbnailPixelSize != nil || transformer != nil
        loaderOptions = options.intersection(Self.loaderBits)

        let scaleDownLimit = context.scaleDownLimitBytes
            ?? (options.contains(.scaleDownLargeImages) ? WebImageContext.defaultScaleDownLimitBytes : nil)
        // The loader decodes at the scale the original's key names (as SDWebImage's loader
        // takes it) unless the context sets one; any decode options or validators of the
        // caller's are replaced, since the manager stores the result under a key made from
        // these fields and decides conditional requests itself.
        var loaderContext = context
        loaderContext.scaleDownLimitBytes = scaleDownLimit
        loaderContext.decodeOptions = loaderContext.decodeOptions(
            forKey: originalKey ?? url.absoluteString, firstFrameOnly: options.contains(.decodeFirstFrameOnly))
        loaderContext.validators = nil
        baseLoaderContext = loaderContext

        // Unless the context sets a scale, a query decodes at the one the original's key
        // names (`@2x`): a thumbnail's or a transform's key has lost the marker, and its
        // image must have the scale the download gave it.
        var queryContext = context
        queryContext.scaleDownLimitBytes = scaleDownLimit
        if queryContext.imageScaleFactor == nil, let originalKey {
            queryContext.imageScaleFactor = CacheKey.scale(for: originalKey)
        }
        let originalContext = queryContext
        // The result's key is the thumbnail's already, whose disk data is the thumbnail.
        queryContext.thumbnailPixelSize = nil

        var resultOptions = Self.queryOptions(options, looking: context.queryCacheType)
        // A result kept apart has no data of its own in memory.
        if isDerived || options.contains(.lazyAnimatedImage) { resultOptions.subtract([.queryMemoryData, .queryMemoryDataSync]) }
        resultQuery = CacheQuery(options: resultOptions, context: queryContext)
        var originalOptions = Self.queryOptions(options, looking: context.originalQueryCacheType)
        originalOptions.subtract([.queryMemorySync, .queryDiskDataSync, .queryMemoryData, .queryMemoryDataSync])
        originalQuery = CacheQuery(options: originalOptions, context: originalContext)
    }

    /// The ``cacheQueryBits`` of `options`, plus ``WebImageOptions/queryMemoryOnly`` for a
    /// query of ``ImageCacheType/memory`` or ``WebImageOptions/queryDiskOnly`` for
    /// ``ImageCacheType/disk``.
    static func queryOptions(_ options: WebImageOptions, looking cacheType: ImageCacheType) -> WebImageOptions {
        var result = options.intersection(cacheQueryBits)
        switch cacheType {
        case .memory: result.insert(.queryMemoryOnly)
        case .disk: result.insert(.queryDiskOnly)
        case .all, .none: break
        }
        return result
    }

    /// The context the loader is handed, with `validators` for a conditional request.
    func loaderContext(validators: HTTPValidators?) -> WebImageContext {
        var context = baseLoaderContext
        context.validators = validators
        return context
    }

    /// `cacheType` narrowed by ``WebImageOptions/cacheMemoryOnly`` (or `memoryOnly`, a
    /// `no-store` response's) and ``WebImageOptions/avoidMemoryCache``.
    func storeCacheType(_ cacheType: ImageCacheType, memoryOnly: Bool = false) -> ImageCacheType {
        var result = cacheType
        if memoryOnly || options.contains(.cacheMemoryOnly) { result = result.includesMemory ? .memory : .none }
        if options.contains(.avoidMemoryCache) { result = result.includesDisk ? .disk : .none }
        return result
    }

    /// The decode options of the original's cached data for a lazy result
    /// (``WebImageOptions/lazyAnimatedImage``), whose data is asked for, not its image.
    var originalDecodeOptions: ImageDecodeOptions {
        originalQuery.context.decodeOptions(
            forKey: originalKey ?? url.absoluteString, firstFrameOnly: options.contains(.decodeFirstFrameOnly))
    }

    /// A result of this load.
    func result(
        image: DecodedImage?, data: Data?, cacheType: ImageCacheType, isFinished: Bool = true,
        http: HTTPResponseInfo? = nil
    ) -> ImageLoadResult {
        ImageLoadResult(
            url: url, image: image, data: isDerived ? nil : data, cacheType: cacheType,
            isFinished: isFinished, cacheKey: key, http: http)
    }

    /// The result of a cache hit.
    func result(_ hit: ImageCacheQueryResult) -> ImageLoadResult {
        result(image: hit.image, data: hit.data, cacheType: hit.cacheType)
    }

    /// A finished failure of this load.
    func failure(_ error: WebImageError) -> ImageLoadResult {
        .failure(error, url: url, cacheKey: key)
    }
}

extension ImageTask {
    /// Throws ``WebImageCodecs/WebImageError/Code/cancelled`` once the load was cancelled
    /// (this task, or the Swift task running it).
    func checkCancelled() throws(WebImageError) {
        if isCancelled || Task.isCancelled { throw .cancelled("The image load was cancelled") }
    }
}
