import Foundation

extension ImageCache {
    /// Looks `key` up in memory, then on disk; see ``ImageCaching/queryImage(forKey:options:context:completion:)``.
    ///
    /// A disk hit is read on ``BlockingIOPool/shared``, decoded on ``DecodeQueue/shared``
    /// with ``ImageCacheContext/decodeOptions(forKey:firstFrameOnly:)``, and kept in
    /// memory under ``ImageCacheContext/memoryKey(forKey:)``; with
    /// ``ImageCacheOptions/queryDiskDataSync`` both happen on the caller's thread instead.
    /// Data that does not decode is a miss, and a corrupt file is removed. The completion
    /// runs on the context's callback queue, or the cache's.
    @discardableResult
    public func queryImage(
        forKey key: String, options: ImageCacheOptions = [], context: ImageCacheContext = .init(),
        completion: @escaping CacheQueryOperation.Completion
    ) -> CacheQueryOperation {
        let operation = CacheQueryOperation(callbackQueue: context.callbackQueue ?? callbackQueue, completion: completion)
        let memoryKey = context.memoryKey(forKey: key)
        let sync = options.contains(.queryDiskDataSync)
        let inline = options.contains(.queryMemorySync) || sync
        if !options.contains(.queryDiskOnly), config.shouldCacheImagesInMemory,
           var image = memoryCache.value(forKey: memoryKey) {
            if options.contains(.decodeFirstFrameOnly) { image = image.firstFrame }
            WebImageMetrics.memoryHits.increment()
            let hit = ImageCacheQueryResult(image: image, cacheType: .memory)
            guard options.contains(.queryMemoryData), config.shouldUseDisk else {
                operation.finish(with: .success(hit), synchronously: inline)
                return operation
            }
            if options.contains(.queryMemoryDataSync) || sync {
                var withData = hit
                withData.data = diskCache.readDataSync(forKey: key)
                operation.finish(with: .success(withData), synchronously: true)
            } else {
                diskCache.data(forKey: key) { data in
                    var withData = hit
                    withData.data = data
                    operation.finish(with: .success(withData))
                }
            }
            return operation
        }
        guard !options.contains(.queryMemoryOnly), config.shouldUseDisk else {
            WebImageMetrics.misses.increment()
            operation.finish(with: .success(.miss), synchronously: inline)
            return operation
        }
        let firstFrameOnly = options.contains(.decodeFirstFrameOnly)
        let decodeOptions = context.decodeOptions(forKey: key, firstFrameOnly: firstFrameOnly)
        if sync {
            let data = diskCache.readDataSync(forKey: key)
            let result = data.map { decodeDiskHit($0, key: key, memoryKey: memoryKey, options: decodeOptions) } ?? .miss
            if data == nil { WebImageMetrics.misses.increment() }
            operation.finish(with: .success(result), synchronously: true)
            return operation
        }
        diskCache.data(forKey: key) { [self] data in
            guard !operation.isCancelled else { return }
            guard let data else {
                WebImageMetrics.misses.increment()
                operation.finish(with: .success(.miss))
                return
            }
            let ticket = DecodeQueue.shared.submit { [self] in
                guard !operation.isCancelled else { return }
                operation.finish(with: .success(decodeDiskHit(data, key: key, memoryKey: memoryKey, options: decodeOptions)))
            }
            operation.onCancel { DecodeQueue.shared.cancel(ticket) }
        }
        return operation
    }

    /// Decodes disk data and keeps the image in memory (not a first-frame decode, which
    /// would stand in for the whole animation); undecodable data is a miss.
    private func decodeDiskHit(
        _ data: Data, key: String, memoryKey: String, options: ImageDecodeOptions
    ) -> ImageCacheQueryResult {
        do {
            let image = try WebImageMetrics.time(WebImageMetrics.decodeDuration) {
                try config.coders.decode(data, options: options)
            }
            if config.shouldCacheImagesInMemory && !options.firstFrameOnly {
                memoryCache.setValue(image, forKey: memoryKey, cost: image.cost)
            }
            WebImageMetrics.diskHits.increment()
            return ImageCacheQueryResult(image: image, data: data, cacheType: .disk)
        } catch {
            discardUndecodable(error, forKey: key)
            WebImageMetrics.misses.increment()
            return .miss
        }
    }

    /// Removes the file when its data is corrupt. Data that is merely too large for these
    /// decode options, or in a format no installed coder reads, stays: it is not broken.
    private func discardUndecodable(_ error: any Error, forKey key: String) {
        let code = (error as? WebImageError)?.code
        guard code != .imageTooLarge, code != .unsupportedFormat, code != .cancelled else { return }
        Self.logger.debug("Removing undecodable cache entry for \(key.redactedURLForLog): \(error)")
        diskCache.removeData(forKey: key)
    }
}
