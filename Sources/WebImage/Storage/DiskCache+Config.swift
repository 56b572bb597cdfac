import Foundation

extension DiskCache {
    /// Limits and storage choices of a disk cache.
    public struct Config: Sendable {
        /// Entries not read for longer than this many seconds are removed by
        /// ``DiskCache/removeExpiredData()``. Default one week; negative never expires.
        ///
        /// Normalised when set (see ``clampedAge(_:)``): NaN becomes the default (one
        /// week); a negative value, `.infinity` and anything over 100 years become -1
        /// (never expires).
        public var maxDiskAge: TimeInterval = Config.defaultMaxDiskAge {
            didSet { maxDiskAge = Self.clampedAge(maxDiskAge) }
        }
        /// Total bytes allowed; when exceeded, least recently read entries are removed
        /// until the total is at most half of it. Default 0, no limit.
        ///
        /// A negative value becomes 0 (no limit).
        public var maxDiskSize: Int = 0 { didSet { maxDiskSize = max(0, maxDiskSize) } }
        /// Directories searched, read-only, after the main one (for example a cache
        /// pre-filled at build time). Entries there are never modified or removed.
        public var additionalCachePaths: [String] = []
        /// Store extended data in a `user.` extended attribute when the file system
        /// supports it (default `true`); `false` always uses a hidden sidecar file, for
        /// directories copied by tools that drop extended attributes.
        public var usesExtendedAttributes: Bool = true
        /// A limit shared with other caches under one root, and with other processes (see
        /// ``DiskBudget``). When set it replaces ``maxDiskAge`` and ``maxDiskSize``. Default none.
        public var budget: DiskBudget?
        /// Where reads run. Default ``BlockingIOPool/shared``.
        public var ioPool: BlockingIOPool = .shared
        /// The most bytes of writes queued on the cache's I/O queue and not yet done. A
        /// write past it is not queued but fails at once with
        /// ``WebImageCodecs/WebImageError/Code/cacheIOFailed``: a cache write left out costs
        /// a later miss, while a line without a bound would hold every download's bytes
        /// in memory when the disk stalls. A single write larger than the limit is queued
        /// when no other write is, so every entry can be stored. Default 128 MiB.
        ///
        /// Less than 1 becomes 1.
        public var maxQueuedWriteBytes: Int = 128 << 20 { didSet { maxQueuedWriteBytes = max(1, maxQueuedWriteBytes) } }

        public init(
            maxDiskAge: TimeInterval = 7 * 24 * 60 * 60,
            maxDiskSize: Int = 0,
            additionalCachePaths: [String] = [],
            usesExtendedAttributes: Bool = true
        ) {
            self.maxDiskAge = Self.clampedAge(maxDiskAge)
            self.maxDiskSize = max(0, maxDiskSize)
            self.additionalCachePaths = additionalCachePaths
            self.usesExtendedAttributes = usesExtendedAttributes
        }

        /// The default ``maxDiskAge``: one week.
        public static let defaultMaxDiskAge: TimeInterval = 7 * 24 * 60 * 60
        /// The longest ``maxDiskAge`` kept as given: 100 years. Longer ages never expire
        /// within the life of a cache, so they become -1.
        public static let maxExpiringAge: TimeInterval = 100 * 365.25 * 24 * 60 * 60

        /// `age` as a valid ``maxDiskAge``: NaN gives the default (one week); a negative
        /// value, `.infinity` and anything over ``maxExpiringAge`` give -1 (never expires);
        /// 0 through 100 years stay as they are.
        public static func clampedAge(_ age: TimeInterval) -> TimeInterval {
            if age.isNaN { return defaultMaxDiskAge }
            return (0...maxExpiringAge).contains(age) ? age : -1
        }
    }
}
