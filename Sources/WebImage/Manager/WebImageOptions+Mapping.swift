/// The one place where manager options become loader and cache options.
extension WebImageOptions {
    /// The downloader options these options ask for. The conditional-request flag
    /// (``DownloaderOptions/useHTTPCache``) is added by the refresh path only.
    var downloaderOptions: DownloaderOptions {
        var result: DownloaderOptions = []
        let pairs: [(WebImageOptions, DownloaderOptions)] = [
            (.lowPriority, .lowPriority), (.highPriority, .highPriority),
            (.progressiveLoad, .progressiveLoad), (.handleCookies, .handleCookies),
            (.allowInvalidSSLCertificates, .allowInvalidSSLCertificates),
            (.scaleDownLargeImages, .scaleDownLargeImages), (.decodeFirstFrameOnly, .decodeFirstFrameOnly),
            (.avoidDecodeImage, .avoidDecodeImage), (.lazyAnimatedImage, .lazyAnimatedImage),
        ]
        for (option, mapped) in pairs where contains(option) { result.insert(mapped) }
        return result
    }

    /// The cache query options for a query that looks in `cacheType`.
    func cacheOptions(querying cacheType: ImageCacheType) -> ImageCacheOptions {
        var result: ImageCacheOptions = []
        if contains(.decodeFirstFrameOnly) { result.insert(.decodeFirstFrameOnly) }
        let pairs: [(WebImageOptions, ImageCacheOptions)] = [
            (.queryMemorySync, .queryMemorySync), (.queryDiskDataSync, .queryDiskDataSync),
            (.queryMemoryData, .queryMemoryData), (.queryMemoryDataSync, .queryMemoryDataSync),
        ]
        for (option, mapped) in pairs where contains(option) { result.insert(mapped) }
        switch cacheType {
        case .memory: result.insert(.queryMemoryOnly)
        case .disk: result.insert(.queryDiskOnly)
        case .all, .none: break
        }
        return result
    }

    /// The priority ``lowPriority`` / ``highPriority`` ask for.
    var loadPriority: ImageLoadPriority {
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
