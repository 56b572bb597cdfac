import Foundation
import Synchronization

/// The cache stages: the result's own key, then for a thumbnail or transformed key the
/// original's data, which is transformed without downloading.
extension ImageManager {
    /// Looks the result's key up, unless the load skips the cache. The cache does the
    /// work the options ask for (queryMemoryData, queryDiskDataSync) behind ``ImageCaching``.
    func queryCache(_ load: ManagedLoad) {
        guard let key = load.key, !load.options.contains(.fromLoaderOnly), load.context.queryCacheType != .none else {
            load.queue.async { self.queryOriginal(load) }
            return
        }
        var options = load.options.cacheOptions(querying: load.context.queryCacheType)
        if load.isKeptApart { options.subtract([.queryMemoryData, .queryMemoryDataSync]) }
        let context = load.context.cacheContext(options: load.options, queue: load.queue, thumbnail: false)
        let hasReturned = Mutex(false)
        let caller = pthread_self()
        let operation = load.cache.queryImage(forKey: key, options: options, context: context) { [self] result in
            // On the caller's thread before `queryImage` returned: a synchronous hit
            // (queryMemorySync, queryDiskDataSync). Other completions run on the pipeline
            // queue, possibly before the caller got to set `hasReturned`.
            let inline = pthread_equal(pthread_self(), caller) != 0 && !hasReturned.withLock { $0 }
            switch result {
            case .failure(let error):
                load.operation.deliver(load.failure(error), isLast: true, inline: inline)
            case .success(let hit) where hit.image != nil:
                deliverHit(load, hit, inline: inline)
            case .success:
                if inline {
                    load.queue.async { self.queryOriginal(load) }
                } else {
                    queryOriginal(load)
                }
            }
        }
        hasReturned.withLock { $0 = true }
        load.operation.setCacheOperation(operation)
    }

    private func deliverHit(_ load: ManagedLoad, _ hit: ImageCacheQueryResult, inline: Bool) {
        let refresh = load.options.contains(.refreshCached)
        if load.httpCachePolicy == .respectHeaders, !refresh, !load.options.contains(.fromCacheOnly) {
            // Whether the hit may be used depends on its stored freshness: a disk read.
            load.queue.async { self.deliverIfFresh(load, hit) }
            return
        }
        let result = load.result(image: hit.image, data: hit.data, cacheType: hit.cacheType)
        load.operation.deliver(result, isLast: !refresh, inline: inline)
        guard refresh else { return }
        if inline {
            load.queue.async { self.download(load, cached: hit) }
        } else {
            download(load, cached: hit)
        }
    }

    /// For a thumbnail, transformed or lazy key that missed: decodes the original's data
    /// from the cache (by default disk) to the thumbnail size and transforms it, without a
    /// download. Anything else goes on to the download. Runs on the load's queue.
    func queryOriginal(_ load: ManagedLoad) {
        guard !load.operation.isFinished else { return }
        let cacheType = load.context.originalQueryCacheType
        guard load.isKeptApart, let originalKey = load.originalKey, !load.options.contains(.fromLoaderOnly),
              cacheType != .none else {
            download(load, cached: nil)
            return
        }
        if load.isLazy {
            guard cacheType.includesDisk else {
                download(load, cached: nil)
                return
            }
            decodeOriginalData(load, key: originalKey)
            return
        }
        var options = load.options.cacheOptions(querying: cacheType)
        options.subtract([.queryMemorySync, .queryDiskDataSync, .queryMemoryData, .queryMemoryDataSync])
        let context = load.context.cacheContext(options: load.options, queue: load.queue, thumbnail: true)
        let operation = load.cache.queryImage(forKey: originalKey, options: options, context: context) { [self] result in
            switch result {
            case .failure(let error):
                load.operation.deliver(load.failure(error), isLast: true, inline: false)
            case .success(let hit):
                guard let image = hit.image else {
                    download(load, cached: nil)
                    return
                }
                complete(load, image: image, data: hit.data, cacheType: hit.cacheType, download: nil)
            }
        }
        load.operation.setCacheOperation(operation)
    }

    /// A lazy load's miss: reads the original's encoded data from disk (the cache decodes
    /// eagerly, so the data is asked for, not the image), decodes its structure and poster
    /// on ``DecodeQueue/shared`` with the context's coder (default
    /// ``ImageCodersManager/shared``), then transforms and stores the result as a download
    /// would. No data, or data that does not decode, goes on to the download.
    private func decodeOriginalData(_ load: ManagedLoad, key: String) {
        let options = load.context.cacheContext(options: load.options, queue: load.queue, thumbnail: true)
            .decodeOptions(forKey: key, firstFrameOnly: load.options.contains(.decodeFirstFrameOnly))
        let coder = load.context.imageCoder ?? ImageCodersManager.shared
        load.cache.diskData(forKey: key) { [self] data in
            guard let data, !load.operation.isFinished else {
                load.queue.async { self.download(load, cached: nil) }
                return
            }
            DecodeQueue.shared.submit { [self] in
                guard !load.operation.isFinished else { return }
                let image = try? WebImageMetrics.time(WebImageMetrics.decodeDuration) {
                    try DecodedImage.decodingLazily(data, options: options, coder: coder)
                }
                load.queue.async {
                    guard let image else {
                        self.download(load, cached: nil)
                        return
                    }
                    WebImageMetrics.diskHits.increment()
                    self.complete(load, image: image, data: data, cacheType: .disk, download: nil)
                }
            }
        }
    }
}
