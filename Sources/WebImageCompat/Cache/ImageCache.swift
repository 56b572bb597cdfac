import Foundation
import WebImage

/// A memory cache of decoded images in front of a disk cache of their encoded data:
/// SDWebImage's `SDImageCache`, a façade over the library's own cache (the two tiers
/// ``WebImage/ImageManager/init(memoryCache:diskCache:loader:decodeQueue:failedURLPolicy:)``
/// takes), with `SDImageCache`'s settings and conveniences.
///
/// Keys are strings, normally the URL (see ``WebImage/CacheKey`` for derived keys). Stores
/// put the image in memory at once and write the disk in the background; queries look in
/// memory, then on disk, decoding and keeping the result in memory.
///
/// ```swift
/// let cache = ImageCache(namespace: "thumbnails")
/// try await cache.store(image, data: data, forKey: url.absoluteString)
/// let hit = try await cache.queryImage(forKey: url.absoluteString)
/// ```
///
/// ``shared`` is the cache ``WebImage/ImageManager/shared`` uses: the same memory and the
/// same files.
///
/// Thread-safe. Where the work runs: memory lookups on the calling thread; disk reads on
/// the calling task when the kernel has the file cached, else on ``Config/ioPool``
/// (see ``WebImage/DiskCache/data(forKey:)``); disk writes on the disk cache's serial I/O
/// queue; decoding and encoding on ``Config/decodeQueue``. SDWebImage's callback forms,
/// with completions on a `DispatchQueue`, are in ``ImageCachingCallbacks``.
public final class ImageCache: ImageCaching {
    /// The shared cache: namespace `"default"` in the default directory, the one
    /// ``WebImage/ImageManager/shared`` uses.
    public static let shared = ImageCache(
        storage: .shared, memoryCache: LibraryCache.sharedMemory, diskCache: LibraryCache.sharedDisk, config: Config())

    /// The settings the cache was created with.
    public let config: Config
    /// The decoded images, weighed by ``WebImageCodecs/DecodedImage/cost``.
    public let memoryCache: MemoryCache<String, DecodedImage>
    /// The encoded data.
    public let diskCache: DiskCache
    /// The library's cache over the tiers the settings use: what every requirement runs.
    let storage: LibraryCache

    /// Creates a cache whose files live in `directory/namespace`, or with `directory`
    /// `nil` (the default) in ``WebImage/DiskCache/defaultDirectory(namespace:)``.
    public init(namespace: String, directory: URL? = nil, config: Config = Config()) {
        self.config = config
        memoryCache = MemoryCache(totalCostLimit: config.maxMemoryCost, countLimit: config.maxMemoryCount,
                                  entryCostLimit: config.maxMemoryEntryCost)
        diskCache = DiskCache(directory: Self.diskDirectory(namespace: namespace, directory: directory), config: config.diskConfig)
        storage = LibraryCache(
            memory: config.shouldCacheImagesInMemory ? memoryCache : nil, disk: config.shouldUseDisk ? diskCache : nil,
            coders: config.coders, encodeOptions: config.encodeOptions, decodeQueue: config.decodeQueue)
    }

    private init(storage: LibraryCache, memoryCache: MemoryCache<String, DecodedImage>, diskCache: DiskCache, config: Config) {
        self.storage = storage
        self.memoryCache = memoryCache
        self.diskCache = diskCache
        self.config = config
    }

    /// The directory of the disk cache of `ImageCache(namespace:directory:)`:
    /// `directory/namespace`, or ``WebImage/DiskCache/defaultDirectory(namespace:)``
    /// without a directory.
    public static func diskDirectory(namespace: String, directory: URL?) -> URL {
        DiskCache.directory(namespace: namespace, in: directory)
    }

    /// The format an image stored without data is encoded in: its own format for an
    /// animated GIF, WebP or APNG (GIF for other animations), otherwise PNG when any pixel
    /// is not opaque and JPEG when all are. When the cache's coders cannot write an
    /// animation's own format (there is no APNG encoder among the built-in ones), it is
    /// stored as WebP (which keeps colours and alpha), else GIF.
    public static func preferredEncodingFormat(for image: DecodedImage) -> ImageFormat {
        LibraryCache.preferredEncodingFormat(for: image)
    }

    // MARK: Conveniences

    /// Stores `image` in memory now and, with `toDisk`, its `data` on disk (without
    /// `data` the image is encoded first, see ``preferredEncodingFormat(for:)``); returns
    /// when the disk write is done.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/cacheIOFailed`` or ``WebImageCodecs/WebImageError/Code/encodingFailed``.
    public func store(
        _ image: DecodedImage, data: Data? = nil, forKey key: String, toDisk: Bool = true
    ) async throws(WebImageError) {
        try await store(image, data: data, forKey: key, cacheType: toDisk ? .all : .memory)
    }

    /// The image decoded from the disk data for `key` (then also kept in memory), or
    /// `nil` when there is none or it does not decode (an undecodable file is removed).
    public func imageFromDisk(forKey key: String) async -> DecodedImage? {
        let result = try? await queryImage(forKey: key, options: .queryDiskOnly)
        return result?.image
    }

    /// The encoded data on disk for `key`, or `nil`.
    public func diskImageData(forKey key: String) async -> Data? {
        await diskData(forKey: key)
    }

    /// Where `key` is cached: ``WebImage/ImageCacheType/memory``,
    /// ``WebImage/ImageCacheType/disk`` or ``WebImage/ImageCacheType/none``.
    public func containsImage(forKey key: String) async -> ImageCacheType {
        await containsImage(forKey: key, cacheType: .all)
    }

    /// Removes `key` from memory and, with `fromDisk` (the default), from disk.
    public func removeImage(forKey key: String, fromDisk: Bool = true) async {
        await removeImage(forKey: key, cacheType: fromDisk ? .all : .memory)
    }

    /// Empties the memory cache. Runs on the caller's thread.
    public func clearMemory() {
        memoryCache.removeAll()
    }

    /// Removes every file of the disk cache.
    public func clearDisk() async {
        await diskCache.removeAll()
    }

    /// Applies ``Config/maxDiskAge`` and ``Config/maxDiskSize`` to the disk cache.
    public func deleteExpiredData() async {
        await diskCache.removeExpiredData()
    }

    /// Exact bytes on disk.
    public func totalDiskSize() async -> Int {
        await diskCache.totalSize()
    }

    /// Exact number of entries on disk.
    public func totalDiskCount() async -> Int {
        await diskCache.totalCount()
    }

    /// The file that holds (or would hold) `key`'s data. Does no I/O.
    public func cachePath(forKey key: String) -> String {
        diskCache.cachePath(forKey: key)
    }

    // MARK: ImageCaching

    /// The image in memory for `key`, without touching the disk. Runs on the caller's thread.
    public func imageFromMemory(forKey key: String) -> DecodedImage? {
        storage.imageFromMemory(forKey: key)
    }

    /// Looks `key` up in memory, then on disk; see ``WebImage/ImageCaching/queryImage(forKey:options:context:)``.
    ///
    /// A memory hit is answered on the calling task. A disk hit is read as
    /// ``WebImage/DiskCache/data(forKey:)`` reads (on the calling task when the kernel has
    /// the file cached, else on ``Config/ioPool``), decoded on ``Config/decodeQueue`` with
    /// ``WebImage/WebImageContext/decodeOptions(forKey:firstFrameOnly:)``, and kept in memory
    /// under ``WebImage/WebImageContext/memoryKey(forKey:)``. Data that does not decode is a
    /// miss, and a corrupt file is removed. ``WebImage/WebImageOptions/queryMemoryData`` reads
    /// a memory hit's data the same way. The blocking options mean nothing here: they are
    /// for the callback form.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/cancelled`` when the task was cancelled before the decode.
    public func queryImage(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) async throws(WebImageError) -> ImageCacheQueryResult {
        try await storage.queryImage(forKey: key, options: options, context: context)
    }

    /// The same query with every step on the calling thread, blocking it on the disk read
    /// and the decode; see ``WebImage/ImageCaching/queryImageSynchronously(forKey:options:context:)``.
    /// An `ImageCache` always answers. Never call it from `async` code.
    public func queryImageSynchronously(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) -> ImageCacheQueryResult? {
        storage.queryImageSynchronously(forKey: key, options: options, context: context)
    }

    public func diskData(forKey key: String) async -> Data? {
        await storage.diskData(forKey: key)
    }

    public func extendedData(forKey key: String) async -> Data? {
        await storage.extendedData(forKey: key)
    }

    public func setExtendedData(_ data: Data?, forKey key: String) async throws(WebImageError) {
        try await storage.setExtendedData(data, forKey: key)
    }

    /// `key`'s disk entry, its data and extended data read from one open file on
    /// ``Config/ioPool`` (see ``WebImage/ImageCaching/diskEntry(forKey:)``).
    public func diskEntry(forKey key: String) async -> (data: Data, extendedData: Data?)? {
        await storage.diskEntry(forKey: key)
    }

    /// Writes `key`'s disk entry with its extended data attached before the entry appears,
    /// on the disk cache's I/O queue, and returns when it is written (see
    /// ``WebImage/ImageCaching/storeDiskEntry(_:extendedData:forKey:)``).
    public func storeDiskEntry(_ data: Data, extendedData: Data?, forKey key: String) async throws(WebImageError) {
        try await storage.storeDiskEntry(data, extendedData: extendedData, forKey: key)
    }

    /// Stores in the caches `cacheType` names; see ``WebImage/ImageCaching/store(_:data:forKey:cacheType:)``.
    ///
    /// The memory part happens before the first suspension. The disk part writes `data`
    /// on the disk cache's I/O queue, or with no data encodes `image` on
    /// ``Config/decodeQueue`` first. With neither there is nothing to write.
    public func store(
        _ image: DecodedImage?, data: Data?, forKey key: String, cacheType: ImageCacheType
    ) async throws(WebImageError) {
        try await storage.store(image, data: data, forKey: key, cacheType: cacheType)
    }

    /// Stores without waiting; see ``WebImage/ImageCaching/storeInBackground(_:data:extendedData:forKey:cacheType:)``.
    /// The disk part (an encode on ``Config/decodeQueue`` when there is no data, then the
    /// write and the extended data in one step on the disk cache's I/O queue) is counted
    /// at once, so a ``flush()`` right after this call waits for it.
    public func storeInBackground(
        _ image: DecodedImage?, data: Data?, extendedData: Data?, forKey key: String, cacheType: ImageCacheType
    ) {
        storage.storeInBackground(image, data: data, extendedData: extendedData, forKey: key, cacheType: cacheType)
    }

    /// Returns when every store begun before the call (its encode and disk write) and
    /// every queued removal or trim is done, so a program can exit, or delete the cache
    /// directory, without losing a write or racing one.
    public func flush() async {
        await storage.flush()
    }

    public func removeImage(forKey key: String, cacheType: ImageCacheType) async {
        if cacheType.includesMemory { memoryCache.removeValue(forKey: key) }
        if cacheType.includesDisk { await diskCache.removeData(forKey: key) }
    }

    public func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        await storage.containsImage(forKey: key, cacheType: cacheType)
    }

    public func clear(cacheType: ImageCacheType) async {
        if cacheType.includesMemory { memoryCache.removeAll() }
        if cacheType.includesDisk { await diskCache.removeAll() }
    }
}

// MARK: - Configuration

extension ImageCache {
    /// The settings of an ``ImageCache``.
    public struct Config: Sendable {
        // MARK: Memory

        /// Keep decoded images in memory. Default `true`.
        public var shouldCacheImagesInMemory: Bool = true
        /// Most bytes of decoded pixels kept in memory (``WebImageCodecs/DecodedImage/cost``); 0 is no
        /// limit. Default ``defaultMaxMemoryCost``: 15 % of the physical memory, at most
        /// 768 MiB (Nuke's rule), so a process loading many images reuses the memory of
        /// the ones it evicts instead of growing.
        ///
        /// A negative value becomes 0 (no limit).
        public var maxMemoryCost: Int = Config.defaultMaxMemoryCost {
            didSet { maxMemoryCost = max(0, maxMemoryCost) }
        }
        /// The largest share of ``maxMemoryCost`` one image may take and still be kept in
        /// memory (0 to 1; default 0.1, as Nuke's `entryCostLimit`): a 12 MP photo (48 MB
        /// decoded) is kept under the default limit, a 50 MP one is not. Values outside
        /// 0…1 are clamped; 0 or 1 means any image that fits the limit.
        public var maxMemoryEntryFraction: Double = 0.1 {
            didSet { maxMemoryEntryFraction = maxMemoryEntryFraction.isNaN ? 0.1 : min(max(maxMemoryEntryFraction, 0), 1) }
        }
        /// Most images kept in memory; 0, the default, is no limit.
        ///
        /// A negative value becomes 0 (no limit).
        public var maxMemoryCount: Int = 0 { didSet { maxMemoryCount = max(0, maxMemoryCount) } }

        // MARK: Disk

        /// Keep encoded images on disk. Default `true`.
        public var shouldUseDisk: Bool = true
        /// Seconds since an entry was last read after which it expires. Default one
        /// week; negative never expires.
        ///
        /// Normalised when set, as ``WebImage/DiskCache/Config/maxDiskAge`` is: NaN becomes the
        /// default (one week); a negative value, `.infinity` and anything over 100 years
        /// become -1 (never expires).
        public var maxDiskAge: TimeInterval = DiskCache.Config.defaultMaxDiskAge {
            didSet { maxDiskAge = DiskCache.Config.clampedAge(maxDiskAge) }
        }
        /// Most bytes on disk; when exceeded the cache trims to half. Default 0, no limit.
        ///
        /// A negative value becomes 0 (no limit).
        public var maxDiskSize: Int = 0 { didSet { maxDiskSize = max(0, maxDiskSize) } }
        /// Read-only directories searched after the cache's own. Default none.
        public var additionalCachePaths: [String] = []
        /// A size and age limit shared with other caches and processes (``WebImage/DiskBudget``);
        /// replaces ``maxDiskAge`` and ``maxDiskSize`` when set. Default none.
        public var diskBudget: DiskBudget?
        /// Where disk reads run. Default ``WebImage/BlockingIOPool/shared``.
        public var ioPool: BlockingIOPool = .shared
        /// Most bytes of disk writes queued and not yet done, as
        /// ``WebImage/DiskCache/Config/maxQueuedWriteBytes``: past it a store's disk part fails at
        /// once (a later miss) instead of the line growing while the disk stalls. Default
        /// 128 MiB; at least 1.
        public var maxQueuedWriteBytes: Int = 128 << 20 { didSet { maxQueuedWriteBytes = max(1, maxQueuedWriteBytes) } }

        // MARK: Coding and delivery

        /// The coders that decode disk data and encode images stored without data.
        /// Default ``WebImageCodecs/ImageCodersManager/shared``.
        public var coders: ImageCodersManager = .shared
        /// Options for encoding images stored without data. Default quality 0.9.
        public var encodeOptions: ImageEncodeOptions = ImageEncodeOptions()
        /// Where disk hits are decoded and images stored without data are encoded.
        /// Default ``WebImageCodecs/DecodeQueue/shared``.
        public var decodeQueue: DecodeQueue = .shared

        /// 15 % of the physical memory, at most 768 MiB: what Nuke's `ImageCache` takes
        /// on Apple platforms (SDWebImage leaves it unbounded and relies on memory
        /// warnings, which Linux does not send). The library's shared cache has the same limit.
        public static var defaultMaxMemoryCost: Int { LibraryCache.defaultMemoryCost }

        /// The entry limit ``maxMemoryEntryFraction`` gives, in bytes (0: none beyond the total).
        var maxMemoryEntryCost: Int {
            LibraryCache.entryCostLimit(total: maxMemoryCost, fraction: maxMemoryEntryFraction)
        }

        public init() {}

        /// The disk cache settings these correspond to.
        var diskConfig: DiskCache.Config {
            var config = DiskCache.Config(
                maxDiskAge: maxDiskAge, maxDiskSize: maxDiskSize, additionalCachePaths: additionalCachePaths)
            config.budget = diskBudget
            config.ioPool = ioPool
            config.maxQueuedWriteBytes = maxQueuedWriteBytes
            return config
        }
    }
}
