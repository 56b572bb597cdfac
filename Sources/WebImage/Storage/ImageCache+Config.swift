import Foundation

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
        /// Normalised when set, as ``DiskCache/Config/maxDiskAge`` is: NaN becomes the
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
        /// A size and age limit shared with other caches and processes (``DiskBudget``);
        /// replaces ``maxDiskAge`` and ``maxDiskSize`` when set. Default none.
        public var diskBudget: DiskBudget?
        /// Where disk reads run. Default ``BlockingIOPool/shared``.
        public var ioPool: BlockingIOPool = .shared
        /// Most bytes of disk writes queued and not yet done, as
        /// ``DiskCache/Config/maxQueuedWriteBytes``: past it a store's disk part fails at
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
        /// warnings, which Linux does not send).
        public static var defaultMaxMemoryCost: Int {
            min(Int(clamping: ProcessInfo.processInfo.physicalMemory / 100 * 15), 768 << 20)
        }

        /// The entry limit ``maxMemoryEntryFraction`` gives, in bytes (0: none beyond the total).
        var maxMemoryEntryCost: Int {
            guard maxMemoryCost > 0, maxMemoryEntryFraction > 0, maxMemoryEntryFraction < 1 else { return 0 }
            return max(1, Int(Double(maxMemoryCost) * maxMemoryEntryFraction))
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
