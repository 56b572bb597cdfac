import Foundation
import Logging
import Synchronization

/// The library's own cache, every ``ImageManager``'s by default: the images stage B made,
/// in a ``MemoryCache``, in front of a ``DiskCache`` of the bytes stage A fetched (and of the
/// results a load keeps apart from its original, encoded).
///
/// ``ImageManager/init(memoryCache:diskCache:loader:decodeQueue:failedURLPolicy:)`` makes
/// one from the two tiers; ``ImageManager/shared`` uses the shared one. SDWebImage's
/// `ImageCache` (WebImageCompat) is a façade over one, with `SDImageCache`'s settings and
/// conveniences.
///
/// Keys are strings, normally the URL (see ``CacheKey`` for derived keys). Stores put the
/// image in memory at once and write the disk in the background; queries look in memory,
/// then on disk, decoding and keeping the result in memory. A tier that is `nil` is not
/// used: its queries miss and its stores do nothing.
///
/// Where the work runs: memory lookups on the calling thread; disk reads on the calling
/// task when the kernel has the file cached, else on the disk cache's ``DiskCache/Config/ioPool``
/// (see ``DiskCache/data(forKey:)``); disk writes on the disk cache's serial I/O queue;
/// decoding and encoding on ``decodeQueue``.
package final class LibraryCache: ImageCaching {
    /// The decoded images, weighed by ``WebImageCodecs/DecodedImage/cost``; `nil`: none kept.
    package let memory: MemoryCache<String, DecodedImage>?
    /// The encoded data; `nil`: nothing on disk.
    package let disk: DiskCache?
    /// The coders that decode disk data and encode images stored without data.
    package let coders: ImageCodersManager
    /// Options for encoding images stored without data.
    package let encodeOptions: ImageEncodeOptions
    /// Where disk hits are decoded and images stored without data are encoded.
    package let decodeQueue: DecodeQueue
    /// Stores whose disk part is not done yet, for ``flush()``.
    let pendingStores = PendingWork()
    static let logger = Logger(label: "WebImage.ImageCache")

    package init(
        memory: MemoryCache<String, DecodedImage>?, disk: DiskCache?, coders: ImageCodersManager = .shared,
        encodeOptions: ImageEncodeOptions = ImageEncodeOptions(), decodeQueue: DecodeQueue = .shared
    ) {
        self.memory = memory
        self.disk = disk
        self.coders = coders
        self.encodeOptions = encodeOptions
        self.decodeQueue = decodeQueue
    }

    // MARK: The shared cache

    /// 15 % of the physical memory, at most 768 MiB: what Nuke's `ImageCache` takes on
    /// Apple platforms (SDWebImage leaves it unbounded and relies on memory warnings,
    /// which Linux does not send).
    package static var defaultMemoryCost: Int {
        min(Int(clamping: ProcessInfo.processInfo.physicalMemory / 100 * 15), 768 << 20)
    }

    /// The most one image may weigh and still be kept in memory, as a `fraction` (0 to 1)
    /// of a `total` limit; 0 (no limit beyond the total) when either is 0 or the fraction is 1.
    package static func entryCostLimit(total: Int, fraction: Double) -> Int {
        guard total > 0, fraction > 0, fraction < 1 else { return 0 }
        return max(1, Int(Double(total) * fraction))
    }

    /// The shared cache's memory tier, with the default limits.
    package static let sharedMemory = MemoryCache.withDefaultLimits()
    /// The shared cache's disk tier: namespace `"default"` in ``DiskCache/defaultDirectory(namespace:)``.
    package static let sharedDisk = DiskCache(namespace: "default")
    /// The cache of ``ImageManager/shared`` (and of WebImageCompat's `ImageCache.shared`).
    package static let shared = LibraryCache(memory: sharedMemory, disk: sharedDisk)

    // MARK: ImageCaching

    /// The image in memory for `key`, without touching the disk. Runs on the caller's thread.
    package func imageFromMemory(forKey key: String) -> DecodedImage? {
        memory?.value(forKey: key)
    }

    package func diskData(forKey key: String) async -> Data? {
        await disk?.data(forKey: key)
    }

    package func extendedData(forKey key: String) async -> Data? {
        await disk?.extendedData(forKey: key)
    }

    package func setExtendedData(_ data: Data?, forKey key: String) async throws(WebImageError) {
        try await disk?.setExtendedData(data, forKey: key)
    }

    /// `key`'s disk entry, its data and extended data read from one open file on the disk
    /// cache's I/O pool (see ``ImageCaching/diskEntry(forKey:)``).
    package func diskEntry(forKey key: String) async -> (data: Data, extendedData: Data?)? {
        guard let entry = await disk?.entry(forKey: key) else { return nil }
        return (entry.data, entry.extendedData)
    }

    /// Writes `key`'s disk entry with its extended data attached before the entry appears,
    /// on the disk cache's I/O queue, and returns when it is written (see
    /// ``ImageCaching/storeDiskEntry(_:extendedData:forKey:)``).
    package func storeDiskEntry(_ data: Data, extendedData: Data?, forKey key: String) async throws(WebImageError) {
        try await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, WebImageError>, Never>) in
            store(nil, data: data, extendedData: extendedData, forKey: key, cacheType: .disk) { continuation.resume(returning: $0) }
        }.get()
    }

    /// Returns when every store begun before the call (its encode and disk write) and
    /// every queued removal or trim is done, so a program can exit, or delete the cache
    /// directory, without losing a write or racing one.
    package func flush() async {
        await pendingStores.wait()
        await disk?.flush()
    }

    package func removeImage(forKey key: String, cacheType: ImageCacheType) async {
        if cacheType.includesMemory { memory?.removeValue(forKey: key) }
        if cacheType.includesDisk { await disk?.removeData(forKey: key) }
    }

    package func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        if cacheType.includesMemory, memory?.contains(key) == true { return .memory }
        guard cacheType.includesDisk, let disk else { return .none }
        return await disk.containsData(forKey: key) ? .disk : .none
    }

    package func clear(cacheType: ImageCacheType) async {
        if cacheType.includesMemory { memory?.removeAll() }
        if cacheType.includesDisk { await disk?.removeAll() }
    }
}

extension MemoryCache where Key == String, Value == DecodedImage {
    /// A memory tier of decoded images with the library's default limits, those of the
    /// shared cache: 15 % of the physical memory, at most 768 MiB, and one image at most a
    /// tenth of that (Nuke's `ImageCache` limits).
    public static func withDefaultLimits() -> MemoryCache<String, DecodedImage> {
        let total = LibraryCache.defaultMemoryCost
        return MemoryCache(totalCostLimit: total, entryCostLimit: LibraryCache.entryCostLimit(total: total, fraction: 0.1))
    }
}

// MARK: - Query

extension LibraryCache {
    /// Looks `key` up in memory, then on disk; see ``ImageCaching/queryImage(forKey:options:context:)``.
    ///
    /// A memory hit is answered on the calling task. A disk hit is read as
    /// ``DiskCache/data(forKey:)`` reads (on the calling task when the kernel has the file
    /// cached, else on the disk cache's ``DiskCache/Config/ioPool``), decoded on ``decodeQueue`` with
    /// ``WebImageContext/decodeOptions(forKey:firstFrameOnly:)``, and kept in memory
    /// under ``WebImageContext/memoryKey(forKey:)``. Data that does not decode is a miss,
    /// and a corrupt file is removed. ``WebImageOptions/queryMemoryData`` reads a memory
    /// hit's data the same way. The blocking options (``WebImageOptions/queryDiskDataSync``,
    /// ``WebImageOptions/queryMemoryDataSync``) mean nothing here: they are for the
    /// callback form.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/cancelled`` when the task was cancelled before the decode.
    package func queryImage(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) async throws(WebImageError) -> ImageCacheQueryResult {
        if Task.isCancelled { throw .cancelled("The cache query was cancelled") }
        if var hit = memoryHit(forKey: key, options: options, context: context) {
            if options.contains(.queryMemoryData), let disk { hit.data = await disk.data(forKey: key) }
            return hit
        }
        guard !options.contains(.queryMemoryOnly), let disk else { return Self.miss() }
        guard let data = await disk.data(forKey: key) else { return Self.miss() }
        let decodeOptions = context.decodeOptions(forKey: key, firstFrameOnly: options.contains(.decodeFirstFrameOnly))
        // Thrown only when cancelled; a decode failure is a value (the file may be corrupt).
        let decoded = try await decodeQueue.perform { [coders] in
            .success(DecodeQueue.decodeNow(data, options: decodeOptions, lazy: false, coder: coders))
        }
        return keepDiskHit(decoded, data: data, key: key, memoryKey: context.memoryKey(forKey: key), options: decodeOptions)
    }

    /// The same query with every step on the calling thread, blocking it on the disk read
    /// and the decode; see ``ImageCaching/queryImageSynchronously(forKey:options:context:)``.
    /// This cache always answers. Never call it from `async` code.
    package func queryImageSynchronously(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) -> ImageCacheQueryResult? {
        if var hit = memoryHit(forKey: key, options: options, context: context) {
            if options.contains(.queryMemoryData), let disk { hit.data = disk.readDataSync(forKey: key) }
            return hit
        }
        guard !options.contains(.queryMemoryOnly), let data = disk?.readDataSync(forKey: key) else { return Self.miss() }
        let decodeOptions = context.decodeOptions(forKey: key, firstFrameOnly: options.contains(.decodeFirstFrameOnly))
        let decoded = DecodeQueue.decodeNow(data, options: decodeOptions, lazy: false, coder: coders)
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
            if !options.firstFrameOnly { memory?.setValue(image, forKey: memoryKey, cost: image.cost) }
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
        disk?.removeData(forKey: key)
    }
}

// MARK: - Store

extension LibraryCache {
    /// Stores in the caches `cacheType` names; see ``ImageCaching/store(_:data:forKey:cacheType:)``.
    ///
    /// The memory part happens before the first suspension. The disk part writes `data`
    /// on the disk cache's I/O queue, or with no data encodes `image` on
    /// ``decodeQueue`` first. With neither there is nothing to write.
    package func store(
        _ image: DecodedImage?, data: Data?, forKey key: String, cacheType: ImageCacheType
    ) async throws(WebImageError) {
        guard let write = beginStore(image, data: data, forKey: key, cacheType: cacheType) else { return }
        defer { pendingStores.end() }
        var bytes = write.data
        if bytes == nil {
            bytes = try await decodeQueue.perform { [self] in encode(write.image, forKey: key) }
        }
        try await write.disk.store(bytes ?? Data(), forKey: key)
    }

    /// Stores without waiting; see ``ImageCaching/storeInBackground(_:data:extendedData:forKey:cacheType:)``.
    /// The disk part (an encode on ``decodeQueue`` when there is no data, then the
    /// write and the extended data in one step on the disk cache's I/O queue) is counted
    /// at once, so a ``flush()`` right after this call waits for it.
    package func storeInBackground(
        _ image: DecodedImage?, data: Data?, extendedData: Data?, forKey key: String, cacheType: ImageCacheType
    ) {
        store(image, data: data, extendedData: extendedData, forKey: key, cacheType: cacheType, completion: nil)
    }

    /// The memory part now, then the disk part in the background; `completion` hears how
    /// the disk part went, on the thread that did it (the disk cache's I/O queue,
    /// ``decodeQueue`` when the encode failed, the calling thread when there is
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
        let writeToDisk: @Sendable (Data) -> Void = { bytes in
            let refused = write.disk.queueWrite(of: bytes.count + (extendedData?.count ?? 0), forKey: key) {
                let result = Result { () throws(WebImageError) in
                    try write.disk.writeDataSync(bytes, extendedData: extendedData, forKey: key)
                }
                finish(result)
            }
            if let refused { finish(.failure(refused)) }
        }
        if let data = write.data {
            writeToDisk(data)
            return
        }
        decodeQueue.submit { [self] in
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
    ) -> (image: DecodedImage?, data: Data?, disk: DiskCache)? {
        if let image, cacheType.includesMemory { memory?.setValue(image, forKey: key, cost: image.cost) }
        guard cacheType.includesDisk, let disk, data != nil || image != nil else { return nil }
        pendingStores.begin()
        return (image, data, disk)
    }

    /// The format an image stored without data is encoded in: its own format for an
    /// animated GIF, WebP or APNG (GIF for other animations), otherwise PNG when any pixel
    /// is not opaque and JPEG when all are. When the cache's coders cannot write an
    /// animation's own format (there is no APNG encoder among the built-in ones), it is
    /// stored as WebP (which keeps colours and alpha), else GIF.
    package static func preferredEncodingFormat(for image: DecodedImage) -> ImageFormat {
        if image.isAnimated { return [.gif, .webp, .apng].contains(image.format) ? image.format : .gif }
        return image.hasAlpha ? .png : .jpeg
    }

    private func encode(_ image: DecodedImage?, forKey key: String) -> Result<Data, WebImageError> {
        guard let image else { return .failure(WebImageError(.encodingFailed, "Nothing to encode for \(key.redactedURLForLog)")) }
        var format = Self.preferredEncodingFormat(for: image)
        if image.isAnimated, !coders.canEncode(to: format) {
            format = coders.canEncode(to: .webp) ? .webp : .gif
        }
        do {
            return .success(try coders.encode(image, as: format, options: encodeOptions))
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
