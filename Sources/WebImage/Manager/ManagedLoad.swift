import Foundation

/// Everything one ``ImageManager`` load decided up front, handed from stage to stage,
/// and the ``ImageTask`` its results go to.
struct ManagedLoad: Sendable {
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
    /// Where the results, progress and cancellation of this load live.
    let task: ImageTask
    /// Whether cached entries follow their HTTP caching headers.
    var httpCachePolicy: HTTPCachePolicy = .ignoreHeaders
    /// A cache hit already delivered before the pipeline started (the callback form's
    /// synchronous answer with ``WebImageOptions/refreshCached``).
    var deliveredHit: ImageCacheQueryResult?

    /// Whether the result is derived from the original (a thumbnail or a transform), so
    /// its pixels match no encoded data and it is kept apart from the original.
    var isDerived: Bool { context.thumbnailPixelSize != nil || transformer != nil }

    /// Whether animations load lazily (``WebImageOptions/lazyAnimatedImage``).
    var isLazy: Bool { options.contains(.lazyAnimatedImage) }

    /// Whether the result has a key of its own, apart from the original's data: derived,
    /// or lazy (a lazy image must never be found under the key eager loads use). Such a
    /// load stores the downloaded data under ``originalKey`` and, after a miss of its own
    /// key, makes its result from the data cached there.
    var isKeptApart: Bool { isDerived || isLazy }

    /// Where the result's disk data lives alongside the HTTP validators: the original's
    /// entry for derived results, the result's own otherwise.
    var validatorKey: String? { originalKey }

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

    /// This load with `extra` options added (for example ``WebImageOptions/cacheMemoryOnly``
    /// for a `no-store` response).
    func adding(_ extra: WebImageOptions) -> ManagedLoad {
        var copy = ManagedLoad(
            url: url, options: options.union(extra), context: context, key: key, originalKey: originalKey,
            sourceKey: sourceKey, transformer: transformer, cache: cache, loader: loader, task: task)
        copy.httpCachePolicy = httpCachePolicy
        copy.deliveredHit = deliveredHit
        return copy
    }

    /// Throws ``WebImageCodecs/WebImageError/Code/cancelled`` once the load was cancelled (its task, or
    /// the Swift task running it).
    func checkCancelled() throws(WebImageError) {
        if task.isCancelled || Task.isCancelled { throw .cancelled("The image load was cancelled") }
    }
}
