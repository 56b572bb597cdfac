import Foundation
import Synchronization

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

// MARK: - Store

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

// MARK: - PendingWork

/// Counts work in flight (a cache's stores between the call and the disk write) so
/// `flush()` can wait until none is left.
final class PendingWork: Sendable {
    private struct State {
        var count = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func begin() {
        state.withLock { $0.count += 1 }
    }

    func end() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.count -= 1
            guard s.count == 0 else { return [] }
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the count is zero (at once when it is).
    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> Bool in
                if s.count == 0 { return true }
                s.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
