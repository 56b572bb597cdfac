import WebImage

/// The policies of an ``ImageCachesManager``: which members an operation reaches, and
/// in what order. SDWebImage's `SDImageCachesManagerOperationPolicy`, split by operation
/// so each lists only the cases that mean something for it.
///
/// The list order is the priority: the first member is the highest. (SDWebImage gives
/// the *last* cache the highest priority; here the list reads in the order it is asked.)
extension ImageCachesManager {
    /// How ``ImageCachesManager/queryImage(forKey:options:context:)`` asks its
    /// members. ``imageFromMemory(forKey:)``, ``diskData(forKey:)`` and
    /// ``extendedData(forKey:)`` ask the same members, one at a time.
    public enum QueryPolicy: Sendable, Hashable {
        /// One member at a time, in order; the first hit wins and later members are not
        /// asked. The default.
        case serial
        /// Every member at once; the first hit in list order wins once every earlier
        /// member has missed, and the queries still running are then cancelled.
        case concurrent
        /// Only the first member.
        case highestOnly
        /// Only the last member.
        case lowestOnly
    }

    /// Which members ``ImageCachesManager/store(_:data:forKey:cacheType:)``,
    /// ``ImageCachesManager/removeImage(forKey:cacheType:)`` and
    /// ``ImageCachesManager/clear(cacheType:)`` reach. They run on all of them
    /// at once.
    public enum OperationPolicy: Sendable, Hashable {
        /// Every member. The default.
        case all
        /// Only the first member.
        case highestOnly
        /// Only the last member.
        case lowestOnly
    }

    /// How ``ImageCachesManager/containsImage(forKey:cacheType:)`` asks its members.
    public enum ContainsPolicy: Sendable, Hashable {
        /// Every member at once; the answer is the first one other than
        /// ``WebImage/ImageCacheType/none`` in list order. The default.
        case all
        /// One member at a time, in order, until one answers other than ``WebImage/ImageCacheType/none``.
        case serial
        /// Only the first member.
        case highestOnly
        /// Only the last member.
        case lowestOnly
    }
}

extension ImageCachesManager.QueryPolicy {
    /// The members this policy asks, in the order it asks them.
    func members(of caches: [any ImageCaching]) -> [any ImageCaching] {
        switch self {
        case .serial, .concurrent: caches
        case .highestOnly: Array(caches.prefix(1))
        case .lowestOnly: Array(caches.suffix(1))
        }
    }
}

extension ImageCachesManager.OperationPolicy {
    /// The members this policy reaches.
    func members(of caches: [any ImageCaching]) -> [any ImageCaching] {
        switch self {
        case .all: caches
        case .highestOnly: Array(caches.prefix(1))
        case .lowestOnly: Array(caches.suffix(1))
        }
    }
}

extension ImageCachesManager.ContainsPolicy {
    /// The members this policy asks, in order.
    func members(of caches: [any ImageCaching]) -> [any ImageCaching] {
        switch self {
        case .all, .serial: caches
        case .highestOnly: Array(caches.prefix(1))
        case .lowestOnly: Array(caches.suffix(1))
        }
    }
}
