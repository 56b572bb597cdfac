import Foundation

/// Where a ``PipelineStage`` keeps the values it made: a memory tier read on the caller's
/// task without suspending, and a slower tier (disk) read inside the stage's single flight.
///
/// ``TieredCache`` is the one the server's stages use: a bounded ``MemoryCache`` in front
/// of a ``DiskCache``; it writes in the background. The library's originals are the disk
/// entries of its ``ImageCaching`` (``ImageCachingOriginals``), written before the store returns.
package protocol PipelineStageCache<Value>: Sendable {
    associatedtype Value: Sendable

    /// The value in memory, or `nil`. Never suspends and does no I/O: a stage asks it
    /// before joining or starting any work.
    func memoryValue(forKey key: String) -> Value?

    /// The value in memory, else in the slower tier (which then fills memory), or `nil`.
    func storedValue(forKey key: String) async -> Value?

    /// Keeps a value a stage made: in memory now; in the slower tier now or in the
    /// background, as the cache says. Called inside the stage's run for the key, so its
    /// joiners wait for what it awaits.
    func store(_ value: Value, forKey key: String) async

    /// Keeps a stored value a stage gave back with new metadata and the same bytes (a 304
    /// renewed it): in memory now, and in the slower tier only the metadata (now or in the
    /// background, as ``store(_:forKey:)``). An entry no longer there stays a miss.
    func renew(_ value: Value, forKey key: String) async
}
