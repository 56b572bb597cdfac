/// The one place where a manager load's options become the options of its loader and
/// its cache query, and where the layers' helpers over the options live.
///
/// Loaders and caches take ``WebImageOptions`` too, but the manager hands each only the
/// bits it reads. Why a subset and not every bit: what a loader or cache sees stays what
/// it saw when these were separate types (so a custom loader's or cache's own checks,
/// and any key it builds from the options, do not change with manager-only bits such as
/// `retryFailed` or `delayPlaceholder`), and the bits the manager decides itself
/// (`useHTTPCache`, `queryMemoryOnly`, `queryDiskOnly`) come from the manager, never from
/// a caller's load.
extension WebImageOptions {
    /// The bits a loader reads from a manager load: queueing, the transfer (cookies, TLS)
    /// and the decode. The conditional-request bits are not among them: the manager adds
    /// ``useHTTPCache`` on its revalidation paths only.
    static let loaderBits: WebImageOptions = [
        .lowPriority, .highPriority, .progressiveLoad, .handleCookies, .allowInvalidSSLCertificates,
        .scaleDownLargeImages, .decodeFirstFrameOnly, .avoidDecodeImage, .lazyAnimatedImage,
    ]

    /// The bits a cache query reads from a manager load; ``queryMemoryOnly`` and
    /// ``queryDiskOnly`` come from the query's cache type instead.
    static let cacheQueryBits: WebImageOptions = [
        .decodeFirstFrameOnly, .queryMemorySync, .queryDiskDataSync, .queryMemoryData, .queryMemoryDataSync,
    ]

    /// The options the manager passes its loader: the ``loaderBits`` of these options.
    var loaderOptions: WebImageOptions { intersection(Self.loaderBits) }

    /// The options for a cache query that looks in `cacheType`: the ``cacheQueryBits``
    /// of these options, plus ``queryMemoryOnly`` for ``ImageCacheType/memory`` or
    /// ``queryDiskOnly`` for ``ImageCacheType/disk``.
    func cacheOptions(querying cacheType: ImageCacheType) -> WebImageOptions {
        var result = intersection(Self.cacheQueryBits)
        switch cacheType {
        case .memory: result.insert(.queryMemoryOnly)
        case .disk: result.insert(.queryDiskOnly)
        case .all, .none: break
        }
        return result
    }

    /// Loader: whether these options ask for a conditional request
    /// (``useHTTPCache`` or ``ignoreCachedResponse``).
    var isConditional: Bool { !isDisjoint(with: [.useHTTPCache, .ignoreCachedResponse]) }

    /// The queueing priority ``lowPriority`` / ``highPriority`` ask for (high wins).
    package var loadPriority: ImageLoadPriority {
        if contains(.highPriority) { return .high }
        if contains(.lowPriority) { return .low }
        return .normal
    }

    /// `cacheType` narrowed by ``cacheMemoryOnly`` and ``avoidMemoryCache``.
    func storeCacheType(_ cacheType: ImageCacheType) -> ImageCacheType {
        var result = cacheType
        if contains(.cacheMemoryOnly) { result = result.includesMemory ? .memory : .none }
        if contains(.avoidMemoryCache) { result = result.includesDisk ? .disk : .none }
        return result
    }
}
