/// How a prefetch ended: ``finishedCount`` URLs done with, ``skippedCount`` of them not
/// cached (failed, cancelled or never started).
public struct PrefetchResult: Sendable, Hashable {
    /// URLs done with: all of them once the prefetch ended.
    public var finishedCount: Int
    /// URLs that did not end in the cache.
    public var skippedCount: Int

    /// Creates a result.
    public init(finishedCount: Int, skippedCount: Int) {
        self.finishedCount = finishedCount
        self.skippedCount = skippedCount
    }
}
