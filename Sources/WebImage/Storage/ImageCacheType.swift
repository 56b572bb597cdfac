/// Where an image was found, or which caches an operation applies to.
///
/// As a query result: ``none`` (a miss), ``memory`` or ``disk``. As a target of store,
/// remove or clear: ``memory``, ``disk`` or ``all`` (``none`` does nothing).
public enum ImageCacheType: String, Sendable, Hashable, CaseIterable, Codable {
    /// Not cached; as a target, no cache.
    case none
    /// The memory cache.
    case memory
    /// The disk cache.
    case disk
    /// Both caches (a target only).
    case all

    /// Whether this target includes the memory cache.
    public var includesMemory: Bool { self == .memory || self == .all }
    /// Whether this target includes the disk cache.
    public var includesDisk: Bool { self == .disk || self == .all }
}
