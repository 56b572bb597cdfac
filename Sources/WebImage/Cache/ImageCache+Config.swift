import Dispatch
import Foundation

extension ImageCache {
    /// The settings of an ``ImageCache``.
    public struct Config: Sendable {
        // MARK: Memory

        /// Keep decoded images in memory. Default `true`.
        public var shouldCacheImagesInMemory: Bool = true
        /// Most bytes of decoded pixels kept in memory (``DecodedImage/cost``); 0 is no
        /// limit. Default a quarter of the physical memory.
        ///
        /// A negative value becomes 0 (no limit).
        public var maxMemoryCost: Int = Config.defaultMaxMemoryCost {
            didSet { maxMemoryCost = max(0, maxMemoryCost) }
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

        // MARK: Coding and delivery

        /// The coders that decode disk data and encode images stored without data.
        /// Default ``ImageCodersManager/shared``.
        public var coders: ImageCodersManager = .shared
        /// Options for encoding images stored without data. Default quality 0.9.
        public var encodeOptions: ImageEncodeOptions = ImageEncodeOptions()
        /// Where disk hits are decoded and images stored without data are encoded.
        /// Default ``DecodeQueue/shared``.
        public var decodeQueue: DecodeQueue = .shared
        /// Where the callback forms' completions run; `nil`, the default, is a serial
        /// queue of the cache.
        public var callbackQueue: DispatchQueue?

        /// A quarter of the physical memory.
        public static var defaultMaxMemoryCost: Int {
            Int(clamping: ProcessInfo.processInfo.physicalMemory / 4)
        }

        public init() {}

        /// The disk cache settings these correspond to.
        var diskConfig: DiskCache.Config {
            var config = DiskCache.Config(
                maxDiskAge: maxDiskAge, maxDiskSize: maxDiskSize, additionalCachePaths: additionalCachePaths)
            config.budget = diskBudget
            config.ioPool = ioPool
            return config
        }
    }
}
