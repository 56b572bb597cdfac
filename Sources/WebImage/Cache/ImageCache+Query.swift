import Foundation

extension ImageCache {
    /// Looks `key` up in memory, then on disk; see ``ImageCaching/queryImage(forKey:options:context:completion:)``.
    ///
    /// A disk hit is read on the disk cache's I/O queue, decoded on ``DecodeQueue/shared``
    /// with ``ImageCacheContext/decodeOptions(forKey:firstFrameOnly:)``, and kept in
    /// memory under ``ImageCacheContext/memoryKey(forKey:)``. Data that does not decode
    /// is a miss, and a corrupt file is removed. The completion runs on the context's
    /// callback queue, or the cache's.
    @discardableResult
    public func queryImage(
        forKey key: String, options: ImageCacheOptions = [], context: ImageCacheContext = .init(),
        completion: @escaping CacheQueryOperation.Completion
    ) -> CacheQueryOperation {
        let operation = CacheQueryOperation(callbackQueue: context.callbackQueue ?? callbackQueue, completion: completion)
        let memoryKey = context.memoryKey(forKey: key)
        let inline = options.contains(.queryMemorySync)
        if !options.contains(.queryDiskOnly), config.shouldCacheImagesInMemory,
           var image = memoryCache.value(forKey: memoryKey) {
            if options.contains(.decodeFirstFrameOnly) && image.isAnimated {
                image.frames = [ImageFrame(pixels: image.pixels)]
            }
            operation.finish(with: .success(.init(image: image, cacheType: .memory)), synchronously: inline)
            return operation
        }
        guard !options.contains(.queryMemoryOnly), config.shouldUseDisk else {
            operation.finish(with: .success(.miss), synchronously: inline)
            return operation
        }
        diskCache.ioQueue.async { [self] in
            guard !operation.isCancelled else { return }
            guard let data = diskCache.readDataSync(forKey: key) else {
                operation.finish(with: .success(.miss))
                return
            }
            let firstFrameOnly = options.contains(.decodeFirstFrameOnly)
            let decodeOptions = context.decodeOptions(forKey: key, firstFrameOnly: firstFrameOnly)
            let ticket = DecodeQueue.shared.submit { [self] in
                guard !operation.isCancelled else { return }
                do {
                    let image = try config.coders.decode(data, options: decodeOptions)
                    if config.shouldCacheImagesInMemory && !firstFrameOnly {
                        memoryCache.setValue(image, forKey: memoryKey, cost: image.cost)
                    }
                    operation.finish(with: .success(.init(image: image, data: data, cacheType: .disk)))
                } catch {
                    discardUndecodable(error, forKey: key)
                    operation.finish(with: .success(.miss))
                }
            }
            operation.onCancel { DecodeQueue.shared.cancel(ticket) }
        }
        return operation
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
