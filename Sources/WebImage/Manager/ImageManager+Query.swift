import Foundation
import Synchronization

/// The cache stages: the result's own key, then for a thumbnail or transformed key the
/// original's data, which is transformed without downloading.
extension ImageManager {
    /// Looks the result's key up, unless the load skips the cache.
    func queryCache(_ load: ManagedLoad) {
        guard let key = load.key, !load.options.contains(.fromLoaderOnly), load.context.queryCacheType != .none else {
            load.queue.async { self.queryOriginal(load) }
            return
        }
        let options = load.options.cacheOptions(querying: load.context.queryCacheType)
        let context = load.context.cacheContext(options: load.options, queue: load.queue, thumbnail: false)
        if load.options.contains(.queryDiskDataSync), load.context.queryCacheType.includesDisk,
           let cache = load.cache as? ImageCache {
            if let hit = querySynchronously(cache, key: key, load: load, context: context) {
                cacheHit(load, hit, inline: true)
            } else {
                load.queue.async { self.queryOriginal(load) }
            }
            return
        }
        let hasReturned = Mutex(false)
        let operation = load.cache.queryImage(forKey: key, options: options, context: context) { [self] result in
            // Before `queryImage` returned, this is the caller's thread (queryMemorySync).
            let inline = !hasReturned.withLock { $0 }
            switch result {
            case .failure(let error):
                load.operation.deliver(load.failure(error), isLast: true, inline: true)
            case .success(let hit) where hit.image != nil:
                cacheHit(load, hit, inline: inline)
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

    /// ``WebImageOptions/queryDiskDataSync``: memory, then disk read and decoded on this
    /// thread; a hit is delivered before `loadImage` returns. The decoded image is kept
    /// in memory as an asynchronous disk hit would be.
    private func querySynchronously(
        _ cache: ImageCache, key: String, load: ManagedLoad, context: ImageCacheContext
    ) -> ImageCacheQueryResult? {
        let firstFrameOnly = load.options.contains(.decodeFirstFrameOnly)
        if load.context.queryCacheType.includesMemory, var image = cache.imageFromMemory(forKey: key) {
            if firstFrameOnly && image.isAnimated { image.frames = [ImageFrame(pixels: image.pixels)] }
            return ImageCacheQueryResult(image: image, cacheType: .memory)
        }
        let disk = cache.diskCache
        guard cache.config.shouldUseDisk, let data = disk.ioQueue.sync(execute: { disk.readDataSync(forKey: key) }),
              let image = try? cache.config.coders.decode(data, options: context.decodeOptions(forKey: key, firstFrameOnly: firstFrameOnly))
        else { return nil }
        if cache.config.shouldCacheImagesInMemory && !firstFrameOnly {
            cache.memoryCache.setValue(image, forKey: key, cost: image.cost)
        }
        return ImageCacheQueryResult(image: image, data: data, cacheType: .disk)
    }

    /// Delivers a hit of the result's key; with refreshCached, revalidates afterwards.
    /// With ``WebImageOptions/queryMemoryData`` a memory hit first gets its disk data
    /// (read on the disk queue, or on this thread with ``WebImageOptions/queryMemoryDataSync``).
    private func cacheHit(_ load: ManagedLoad, _ hit: ImageCacheQueryResult, inline: Bool) {
        var hit = hit
        if hit.cacheType == .memory, hit.data == nil, !load.isDerived, load.options.contains(.queryMemoryData),
           let cache = load.cache as? ImageCache, let key = load.key {
            guard load.options.contains(.queryMemoryDataSync) else {
                let found = hit
                cache.diskCache.data(forKey: key) { data in
                    var withData = found
                    withData.data = data
                    let completed = withData
                    load.queue.async { self.deliverHit(load, completed, inline: true) }
                }
                return
            }
            hit.data = cache.diskCache.ioQueue.sync { cache.diskCache.readDataSync(forKey: key) }
        }
        deliverHit(load, hit, inline: inline)
    }

    private func deliverHit(_ load: ManagedLoad, _ hit: ImageCacheQueryResult, inline: Bool) {
        let refresh = load.options.contains(.refreshCached)
        let result = load.result(image: hit.image, data: hit.data, cacheType: hit.cacheType)
        load.operation.deliver(result, isLast: !refresh, inline: inline)
        guard refresh else { return }
        if inline {
            load.queue.async { self.download(load, cached: hit) }
        } else {
            download(load, cached: hit)
        }
    }

    /// For a thumbnail or transformed key that missed: decodes the original's data from
    /// the cache (by default disk) to the thumbnail size and transforms it, without a
    /// download. Anything else goes on to the download. Runs on the load's queue.
    func queryOriginal(_ load: ManagedLoad) {
        guard !load.operation.isFinished else { return }
        let cacheType = load.context.originalQueryCacheType
        guard load.isDerived, let originalKey = load.originalKey, !load.options.contains(.fromLoaderOnly),
              cacheType != .none else {
            download(load, cached: nil)
            return
        }
        var options = load.options.cacheOptions(querying: cacheType)
        options.remove(.queryMemorySync)
        let context = load.context.cacheContext(options: load.options, queue: load.queue, thumbnail: true)
        let operation = load.cache.queryImage(forKey: originalKey, options: options, context: context) { [self] result in
            switch result {
            case .failure(let error):
                load.operation.deliver(load.failure(error), isLast: true, inline: true)
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
}
