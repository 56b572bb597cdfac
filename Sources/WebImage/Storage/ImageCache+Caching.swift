import Foundation

extension ImageCache {
    /// Looks `key` up in memory, then on disk; see ``ImageCaching/queryImage(forKey:options:context:)``.
    ///
    /// A memory hit is answered on the calling task. A disk hit is read as
    /// ``DiskCache/data(forKey:)`` reads (on the calling task when the kernel has the file
    /// cached, else on ``Config/ioPool``), decoded on ``Config/decodeQueue`` with
    /// ``WebImageContext/decodeOptions(forKey:firstFrameOnly:)``, and kept in memory
    /// under ``WebImageContext/memoryKey(forKey:)``. Data that does not decode is a miss,
    /// and a corrupt file is removed. ``WebImageOptions/queryMemoryData`` reads a memory
    /// hit's data the same way. The blocking options (``WebImageOptions/queryDiskDataSync``,
    /// ``WebImageOptions/queryMemoryDataSync``) mean nothing here: they are for the
    /// callback form.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/cancelled`` when the task was cancelled before the decode.
    public func queryImage(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) async throws(WebImageError) -> ImageCacheQueryResult {
        if Task.isCancelled { throw .cancelled("The cache query was cancelled") }
        if var hit = memoryHit(forKey: key, options: options, context: context) {
            if options.contains(.queryMemoryData), config.shouldUseDisk { hit.data = await diskCache.data(forKey: key) }
            return hit
        }
        guard !options.contains(.queryMemoryOnly), config.shouldUseDisk else { return Self.miss() }
        guard let data = await diskCache.data(forKey: key) else { return Self.miss() }
        let decodeOptions = context.decodeOptions(forKey: key, firstFrameOnly: options.contains(.decodeFirstFrameOnly))
        // Thrown only when cancelled; a decode failure is a value (the file may be corrupt).
        let decoded = try await config.decodeQueue.perform { [config] in
            .success(DecodeQueue.decodeNow(data, options: decodeOptions, lazy: false, coder: config.coders))
        }
        return keepDiskHit(decoded, data: data, key: key, memoryKey: context.memoryKey(forKey: key), options: decodeOptions)
    }

    /// The same query with every step on the calling thread, blocking it on the disk read
    /// and the decode; see ``ImageCaching/queryImageSynchronously(forKey:options:context:)``.
    /// An ``ImageCache`` always answers. Never call it from `async` code.
    public func queryImageSynchronously(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) -> ImageCacheQueryResult? {
        if var hit = memoryHit(forKey: key, options: options, context: context) {
            if options.contains(.queryMemoryData), config.shouldUseDisk { hit.data = diskCache.readDataSync(forKey: key) }
            return hit
        }
        guard !options.contains(.queryMemoryOnly), config.shouldUseDisk,
              let data = diskCache.readDataSync(forKey: key) else { return Self.miss() }
        let decodeOptions = context.decodeOptions(forKey: key, firstFrameOnly: options.contains(.decodeFirstFrameOnly))
        let decoded = DecodeQueue.decodeNow(data, options: decodeOptions, lazy: false, coder: config.coders)
        return keepDiskHit(decoded, data: data, key: key, memoryKey: context.memoryKey(forKey: key), options: decodeOptions)
    }

    private func memoryHit(forKey key: String, options: WebImageOptions, context: WebImageContext) -> ImageCacheQueryResult? {
        guard !options.contains(.queryDiskOnly), var image = imageFromMemory(forKey: context.memoryKey(forKey: key)) else {
            return nil
        }
        if options.contains(.decodeFirstFrameOnly) { image = image.firstFrame }
        WebImageMetrics.memoryHits.increment()
        return ImageCacheQueryResult(image: image, cacheType: .memory)
    }

    private static func miss() -> ImageCacheQueryResult {
        WebImageMetrics.misses.increment()
        return .miss
    }

    /// Keeps a decoded disk hit in memory (not a first-frame decode, which would stand in
    /// for the whole animation); an undecodable file is a miss.
    private func keepDiskHit(
        _ decoded: Result<DecodedImage, WebImageError>, data: Data, key: String, memoryKey: String, options: ImageDecodeOptions
    ) -> ImageCacheQueryResult {
        switch decoded {
        case .success(let image):
            if config.shouldCacheImagesInMemory && !options.firstFrameOnly {
                memoryCache.setValue(image, forKey: memoryKey, cost: image.cost)
            }
            WebImageMetrics.diskHits.increment()
            return ImageCacheQueryResult(image: image, data: data, cacheType: .disk)
        case .failure(let error):
            discardUndecodable(error, forKey: key)
            return Self.miss()
        }
    }

    /// Removes the file when its data is corrupt. Data that is merely too large for these
    /// decode options, or in a format no installed coder reads, stays: it is not broken.
    private func discardUndecodable(_ error: WebImageError, forKey key: String) {
        guard error.code != .imageTooLarge, error.code != .unsupportedFormat, error.code != .cancelled else { return }
        Self.logger.debug("Removing undecodable cache entry for \(key.redactedURLForLog): \(error)")
        diskCache.removeData(forKey: key)
    }
}
