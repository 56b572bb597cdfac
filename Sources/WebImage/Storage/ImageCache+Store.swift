import Foundation

extension ImageCache {
    /// Stores in the caches `cacheType` names; see ``ImageCaching/store(_:data:forKey:cacheType:)``.
    ///
    /// The memory part happens before the first suspension. The disk part writes `data`
    /// on the disk cache's I/O queue, or with no data encodes `image` on
    /// ``Config/decodeQueue`` first. With neither there is nothing to write.
    public func store(
        _ image: DecodedImage?, data: Data?, forKey key: String, cacheType: ImageCacheType
    ) async throws(WebImageError) {
        guard let write = beginStore(image, data: data, forKey: key, cacheType: cacheType) else { return }
        defer { pendingStores.end() }
        var bytes = write.data
        if bytes == nil {
            bytes = try await config.decodeQueue.perform { [self] in encode(write.image, forKey: key) }
        }
        try await diskCache.store(bytes ?? Data(), forKey: key)
    }

    /// Stores without waiting; see ``ImageCaching/storeInBackground(_:data:extendedData:forKey:cacheType:)``.
    /// The disk part (an encode on ``Config/decodeQueue`` when there is no data, then the
    /// write and the extended data in one step on the disk cache's I/O queue) is counted
    /// at once, so a ``flush()`` right after this call waits for it.
    public func storeInBackground(
        _ image: DecodedImage?, data: Data?, extendedData: Data?, forKey key: String, cacheType: ImageCacheType
    ) {
        store(image, data: data, extendedData: extendedData, forKey: key, cacheType: cacheType, completion: nil)
    }

    /// The memory part now, then the disk part in the background; `completion` hears how
    /// the disk part went, on the thread that did it (the disk cache's I/O queue,
    /// ``Config/decodeQueue`` when the encode failed, the calling thread when there is
    /// nothing to write or a full line refused the work), and without one a failure is logged.
    /// The background store and WebImageCompat's callback forms share it.
    package func store(
        _ image: DecodedImage?, data: Data?, extendedData: Data?, forKey key: String, cacheType: ImageCacheType,
        completion: (@Sendable (Result<Void, WebImageError>) -> Void)?
    ) {
        let report: @Sendable (Result<Void, WebImageError>) -> Void = { result in
            if let completion {
                completion(result)
            } else if case .failure(let error) = result {
                Self.logger.error("Storing \(key.redactedURLForLog) in the disk cache failed: \(error)")
            }
        }
        guard let write = beginStore(image, data: data, forKey: key, cacheType: cacheType) else {
            if completion != nil { report(.success(())) }
            return
        }
        // Every way the disk part ends reports, then ends the pending store.
        let finish: @Sendable (Result<Void, WebImageError>) -> Void = { [self] result in
            report(result)
            pendingStores.end()
        }
        let writeToDisk: @Sendable (Data) -> Void = { [self] bytes in
            let refused = diskCache.queueWrite(of: bytes.count + (extendedData?.count ?? 0), forKey: key) { [self] in
                let result = Result { () throws(WebImageError) in
                    try diskCache.writeDataSync(bytes, extendedData: extendedData, forKey: key)
                }
                finish(result)
            }
            if let refused { finish(.failure(refused)) }
        }
        if let data = write.data {
            writeToDisk(data)
            return
        }
        config.decodeQueue.submit { [self] in
            switch encode(write.image, forKey: key) {
            case .success(let bytes):
                writeToDisk(bytes)
            case .failure(let error):
                finish(.failure(error))
            }
        } cancelled: {
            // The decode queue's line is full: the disk part is skipped, a later miss.
            finish(.failure(.cancelled("The decode queue's line is full; \(key.redactedURLForLog) was not written to disk")))
        }
    }

    /// The memory part of a store, and what the disk part must write (counted in
    /// ``pendingStores`` until it is done); `nil` when there is nothing for the disk.
    private func beginStore(
        _ image: DecodedImage?, data: Data?, forKey key: String, cacheType: ImageCacheType
    ) -> (image: DecodedImage?, data: Data?)? {
        if let image, cacheType.includesMemory, config.shouldCacheImagesInMemory {
            memoryCache.setValue(image, forKey: key, cost: image.cost)
        }
        guard cacheType.includesDisk, config.shouldUseDisk, data != nil || image != nil else { return nil }
        pendingStores.begin()
        return (image, data)
    }

    /// The format an image stored without data is encoded in: its own format for an
    /// animated GIF, WebP or APNG (GIF for other animations), otherwise PNG when any pixel
    /// is not opaque and JPEG when all are. When the cache's coders cannot write an
    /// animation's own format (there is no APNG encoder among the built-in ones), it is
    /// stored as WebP (which keeps colours and alpha), else GIF.
    public static func preferredEncodingFormat(for image: DecodedImage) -> ImageFormat {
        if image.isAnimated { return [.gif, .webp, .apng].contains(image.format) ? image.format : .gif }
        return image.hasAlpha ? .png : .jpeg
    }

    private func encode(_ image: DecodedImage?, forKey key: String) -> Result<Data, WebImageError> {
        guard let image else { return .failure(WebImageError(.encodingFailed, "Nothing to encode for \(key.redactedURLForLog)")) }
        var format = Self.preferredEncodingFormat(for: image)
        if image.isAnimated, !config.coders.canEncode(to: format) {
            format = config.coders.canEncode(to: .webp) ? .webp : .gif
        }
        do {
            return .success(try config.coders.encode(image, as: format, options: config.encodeOptions))
        } catch {
            return .failure(WebImageError(
                .encodingFailed, "Cannot encode the image for \(key.redactedURLForLog) as \(format.rawValue) to cache it",
                underlying: error))
        }
    }
}
