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
        public var maxMemoryCost: Int = Config.defaultMaxMemoryCost
        /// Most images kept in memory; 0, the default, is no limit.
        public var maxMemoryCount: Int = 0

        // MARK: Disk

        /// Keep encoded images on disk. Default `true`.
        public var shouldUseDisk: Bool = true
        /// Seconds since an entry was last read after which it expires. Default one
        /// week; negative never expires.
        public var maxDiskAge: TimeInterval = 7 * 24 * 60 * 60
        /// Most bytes on disk; when exceeded the cache trims to half. Default 0, no limit.
        public var maxDiskSize: Int = 0
        /// Read-only directories searched after the cache's own. Default none.
        public var additionalCachePaths: [String] = []

        // MARK: Coding and delivery

        /// The coders that decode disk data and encode images stored without data.
        /// Default ``ImageCodersManager/shared``.
        public var coders: ImageCodersManager = .shared
        /// Options for encoding images stored without data. Default quality 0.9.
        public var encodeOptions: ImageEncodeOptions = ImageEncodeOptions()
        /// Where completions run; `nil`, the default, is a serial queue of the cache.
        public var callbackQueue: DispatchQueue?

        /// A quarter of the physical memory.
        public static var defaultMaxMemoryCost: Int {
            Int(clamping: ProcessInfo.processInfo.physicalMemory / 4)
        }

        public init() {}

        /// The disk cache settings these correspond to.
        var diskConfig: DiskCache.Config {
            DiskCache.Config(maxDiskAge: maxDiskAge, maxDiskSize: maxDiskSize, additionalCachePaths: additionalCachePaths)
        }
    }
}
