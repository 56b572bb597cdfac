/// How to run one cache query.
public struct ImageCacheOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Look in memory only; a memory miss is a miss.
    public static let queryMemoryOnly = ImageCacheOptions(rawValue: 1 << 0)
    /// Skip the memory cache and read the disk (the decoded result is still kept in memory).
    public static let queryDiskOnly = ImageCacheOptions(rawValue: 1 << 1)
    /// Return only the first frame of an animation. A first-frame decode from disk is not
    /// kept in memory, where it would stand in for the whole animation.
    public static let decodeFirstFrameOnly = ImageCacheOptions(rawValue: 1 << 2)
    /// Call the completion on the caller's thread, before `queryImage` returns, when the
    /// answer is known without disk I/O (a memory hit, or a miss with ``queryMemoryOnly``).
    /// Without it every completion runs on the callback queue.
    public static let queryMemorySync = ImageCacheOptions(rawValue: 1 << 3)
}
