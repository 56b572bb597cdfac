import Foundation

/// The pipeline of one load, top to bottom:
///
/// ```
/// run
///  ├─ cached result under the load's key (memory, then disk)   → deliverCached (freshness, refresh)
///  ├─ a thumbnail, transform or lazy image made from the original's cached data
///  └─ download → complete (hooks and transform on the decode queue, store) → deliver
/// ```
///
/// Every stage is an `async` function on the load's task; a stage that needs another
/// thread (the disk, the network, a decode) suspends while that thread works, so the
/// manager holds no lock and no queue across it. Results go to the load's ``ImageTask``.
extension ImageManager {
    /// Runs `load` to its end: its last result (or failure) reaches its task.
    func run(_ load: ManagedLoad) async {
        do throws(WebImageError) {
            if let hit = load.deliveredHit {
                try await refresh(load, cached: hit)
            } else if let hit = try await queryCache(load) {
                try await deliverCached(load, hit)
            } else if let derived = try await deriveFromOriginal(load) {
                load.task.finish(derived, isLast: true)
            } else {
                try await downloadAndComplete(load)
            }
        } catch {
            fail(load, error)
        }
    }

    /// The result's own key in the cache, unless the load skips the cache; `nil` on a miss.
    private func queryCache(_ load: ManagedLoad) async throws(WebImageError) -> ImageCacheQueryResult? {
        guard let key = load.key, !load.options.contains(.fromLoaderOnly), load.context.queryCacheType != .none else {
            return nil
        }
        try load.checkCancelled()
        var options = load.options.cacheOptions(querying: load.context.queryCacheType)
        if load.isKeptApart { options.subtract([.queryMemoryData, .queryMemoryDataSync]) }
        let hit = try await load.cache.queryImage(
            forKey: key, options: options,
            context: load.context.cacheContext(options: load.options, thumbnail: false, originalKey: load.originalKey))
        return hit.image != nil ? hit : nil
    }

    /// For a thumbnail, transformed or lazy key that missed: the result made from the
    /// original's cached data (by default on disk), transformed and stored, without a
    /// download. `nil` when there is no such data, or it does not decode.
    private func deriveFromOriginal(_ load: ManagedLoad) async throws(WebImageError) -> ImageLoadResult? {
        let cacheType = load.context.originalQueryCacheType
        guard load.isKeptApart, let originalKey = load.originalKey, !load.options.contains(.fromLoaderOnly),
              cacheType != .none else { return nil }
        try load.checkCancelled()
        if load.isLazy {
            // The cache decodes eagerly, so the data is asked for, not the image.
            guard cacheType.includesDisk, let data = await load.cache.diskData(forKey: originalKey) else { return nil }
            let options = load.context.cacheContext(options: load.options, thumbnail: true, originalKey: originalKey)
                .decodeOptions(forKey: originalKey, firstFrameOnly: load.options.contains(.decodeFirstFrameOnly))
            let coder = load.context.imageCoder ?? ImageCodersManager.shared
            let decoded = await Result { () async throws(WebImageError) -> DecodedImage in
                try await decodeQueue.decode(data, options: options, lazy: true, coder: coder)
            }
            guard case .success(let image) = decoded else {
                try load.checkCancelled()
                return nil
            }
            WebImageMetrics.diskHits.increment()
            return try await complete(load, image: image, data: data, cacheType: .disk, download: nil)
        }
        var options = load.options.cacheOptions(querying: cacheType)
        options.subtract([.queryMemorySync, .queryDiskDataSync, .queryMemoryData, .queryMemoryDataSync])
        let hit = try await load.cache.queryImage(
            forKey: originalKey, options: options,
            context: load.context.cacheContext(options: load.options, thumbnail: true, originalKey: originalKey))
        guard let image = hit.image else { return nil }
        return try await complete(load, image: image, data: hit.data, cacheType: hit.cacheType, download: nil)
    }

    /// After every cache missed: downloads (unless the options or the delegate forbid
    /// it), then transforms, stores and delivers.
    private func downloadAndComplete(_ load: ManagedLoad) async throws(WebImageError) {
        try load.checkCancelled()
        if load.options.contains(.fromCacheOnly) {
            throw WebImageError(.notInCache, "\(load.url.redactedForLog) is not in the cache (fromCacheOnly)")
        }
        guard delegate?.shouldDownloadImage(for: load.url) ?? true else {
            load.task.finish(load.result(image: nil, data: nil, cacheType: .none), isLast: true)
            return
        }
        let response = try await download(load, validators: nil, isRevalidation: false).response(for: load.url)
        load.task.finish(try await complete(downloaded: response, for: load), isLast: true)
    }
}

extension Result where Failure == WebImageError {
    /// The outcome of `body`, caught as a value.
    init(_ body: () async throws(WebImageError) -> Success) async {
        do throws(WebImageError) {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
