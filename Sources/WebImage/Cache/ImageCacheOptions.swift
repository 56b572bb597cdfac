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
    /// Callback form only: call the completion on the caller's thread, before `queryImage`
    /// returns, when the answer is known without disk I/O (a memory hit, or a miss with
    /// ``queryMemoryOnly``). Without it every completion runs on the callback queue.
    public static let queryMemorySync = ImageCacheOptions(rawValue: 1 << 3)
    /// Callback form of an ``ImageCache`` only: read and decode a disk hit on the caller's
    /// thread and call the completion before `queryImage` returns. This blocks the calling
    /// thread on disk I/O and a decode: only for callers that asked for it
    /// (``WebImageOptions/queryDiskDataSync``). The `async` query ignores it.
    public static let queryDiskDataSync = ImageCacheOptions(rawValue: 1 << 4)
    /// A memory hit also carries the encoded data from disk (read as
    /// ``DiskCache/data(forKey:)`` reads).
    public static let queryMemoryData = ImageCacheOptions(rawValue: 1 << 5)
    /// With ``queryMemoryData``, callback form of an ``ImageCache`` only: read that data on
    /// the caller's thread (blocking, as ``queryDiskDataSync``). The `async` query ignores it.
    public static let queryMemoryDataSync = ImageCacheOptions(rawValue: 1 << 6)
}
