import Foundation

/// A value a ``TieredCache`` can write to disk and read back.
package protocol DiskStorable: Sendable {
    /// The value's disk form: written as one file, so a reader in another process sees a
    /// whole entry or none.
    var serialized: Data { get }
    /// Reads ``serialized``; `nil` for anything else (a damaged or foreign file), which the
    /// cache treats as a miss.
    init?(serialized: Data)
    /// What the value weighs in memory, in bytes.
    var memoryCost: Int { get }
}

/// A ``PipelineStageCache``: a bounded ``MemoryCache`` in front of a ``DiskCache`` that
/// several caches (and processes) may share.
///
/// Memory lookups run on the caller's task; disk reads and writes on the disk cache's
/// blocking-I/O pool and queue. Bounded by the memory cache's byte limit and the disk
/// cache's budget.
package final class TieredCache<Value: DiskStorable>: PipelineStageCache {
    package let memory: MemoryCache<String, Value>
    package let disk: DiskCache

    /// - Parameter memoryBytes: the memory tier's limit in bytes (at least 1).
    package init(disk: DiskCache, memoryBytes: Int) {
        memory = MemoryCache(totalCostLimit: max(1, memoryBytes))
        self.disk = disk
    }

    package func memoryValue(forKey key: String) -> Value? { memory.value(forKey: key) }

    package func storedValue(forKey key: String) async -> Value? {
        if let hit = memory.value(forKey: key) { return hit }
        guard let data = await disk.data(forKey: key), let hit = Value(serialized: data) else { return nil }
        memory.setValue(hit, forKey: key, cost: hit.memoryCost)
        return hit
    }

    /// In memory now, on disk in the background; a failed disk write only costs a later miss.
    package func store(_ value: Value, forKey key: String) {
        memory.setValue(value, forKey: key, cost: value.memoryCost)
        disk.store(value.serialized, forKey: key)
    }

    /// Waits for pending disk writes (graceful shutdown).
    package func flush() async { await disk.flush() }
}
