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
/// manager holds no lock and no queue across it. Each stage reads what it needs from the
/// load's `ImageRequest`; results go to the load's ``ImageTask``.
extension ImageManager {
    /// Runs `request` to its end: its last result (or failure) reaches `task`.
    ///
    /// - Parameter deliveredHit: a cache hit already delivered before the pipeline started
    ///   (the callback form's synchronous answer with ``WebImageOptions/refreshCached``):
    ///   the pipeline goes straight to the refresh.
    func run(_ request: ImageRequest, _ task: ImageTask, deliveredHit: ImageCacheQueryResult? = nil) async {
        do throws(WebImageError) {
            if let hit = deliveredHit {
                try await refresh(request, task, cached: hit)
            } else if let hit = try await queryCache(request, task) {
                try await deliverCached(request, task, hit)
            } else if let derived = try await deriveFromOriginal(request, task) {
                task.finish(derived, isLast: true)
            } else {
                try await downloadAndComplete(request, task)
            }
        } catch {
            fail(request, task, error)
        }
    }

    /// The result's own key in the cache, unless the load skips the cache; `nil` on a miss.
    private func queryCache(_ request: ImageRequest, _ task: ImageTask) async throws(WebImageError) -> ImageCacheQueryResult? {
        guard let key = request.key, !request.options.contains(.fromLoaderOnly), request.context.queryCacheType != .none else {
            return nil
        }
        try task.checkCancelled()
        let query = request.resultQuery
        let hit = try await request.cache.queryImage(forKey: key, options: query.options, context: query.context)
        return hit.image != nil ? hit : nil
    }

    /// For a thumbnail, transformed or lazy key that missed: the result made from the
    /// original's cached data (by default on disk), transformed and stored, without a
    /// download. `nil` when there is no such data, or it does not decode.
    private func deriveFromOriginal(_ request: ImageRequest, _ task: ImageTask) async throws(WebImageError) -> ImageLoadResult? {
        let cacheType = request.context.originalQueryCacheType
        guard request.isKeptApart, let originalKey = request.originalKey, !request.options.contains(.fromLoaderOnly),
              cacheType != .none else { return nil }
        try task.checkCancelled()
        if request.isLazy {
            // The cache decodes eagerly, so the data is asked for, not the image.
            guard cacheType.includesDisk, let data = await request.cache.diskData(forKey: originalKey) else { return nil }
            let (options, coder) = (request.originalDecodeOptions, request.context.imageCoder ?? ImageCodersManager.shared)
            let decoded = await Result { () async throws(WebImageError) -> DecodedImage in
                try await decodeQueue.decode(data, options: options, lazy: true, coder: coder)
            }
            guard case .success(let image) = decoded else {
                try task.checkCancelled()
                return nil
            }
            WebImageMetrics.diskHits.increment()
            return try await complete(request, task, image: image, data: data, cacheType: .disk, download: nil)
        }
        let query = request.originalQuery
        let hit = try await request.cache.queryImage(forKey: originalKey, options: query.options, context: query.context)
        guard let image = hit.image else { return nil }
        return try await complete(request, task, image: image, data: hit.data, cacheType: hit.cacheType, download: nil)
    }

    /// After every cache missed: downloads (unless the options or the delegate forbid
    /// it), then transforms, stores and delivers.
    private func downloadAndComplete(_ request: ImageRequest, _ task: ImageTask) async throws(WebImageError) {
        try task.checkCancelled()
        if request.options.contains(.fromCacheOnly) {
            throw WebImageError(.notInCache, "\(request.url.redactedForLog) is not in the cache (fromCacheOnly)")
        }
        guard delegate?.shouldDownloadImage(for: request.url) ?? true else {
            task.finish(request.result(image: nil, data: nil, cacheType: .none), isLast: true)
            return
        }
        let response = try await download(request, task, validators: nil, isRevalidation: false).response(for: request.url)
        task.finish(try await complete(downloaded: response, for: request, task), isLast: true)
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
