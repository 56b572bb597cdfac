import Foundation

/// A disk entry as a ``TieredCache`` writes and reads it: the file's bytes and the extended
/// data kept with the file (``DiskCache/extendedAttributeName``, else its sidecar).
package struct StoredEntry: Sendable, Equatable {
    package var data: Data
    package var extendedData: Data?

    package init(data: Data, extendedData: Data? = nil) {
        self.data = data
        self.extendedData = extendedData
    }
}

/// A value a ``TieredCache`` can write to disk and read back.
package protocol DiskStorable: Sendable {
    /// The value's disk form: one file (and its extended data), written at once, so a
    /// reader in another process sees a whole entry or none.
    var storedEntry: StoredEntry { get }
    /// Reads ``storedEntry``; `nil` for anything else (a damaged or foreign file), which
    /// the cache treats as a miss.
    init?(storedEntry: StoredEntry)
    /// Whether the value keeps extended data. Then a disk read takes the bytes and the
    /// extended data from one open file on the disk cache's I/O pool
    /// (``DiskCache/entry(forKey:)``); otherwise only the bytes, on the caller's task when
    /// the kernel has them cached (``DiskCache/data(forKey:)``).
    static var keepsExtendedData: Bool { get }
    /// What the value weighs in memory, in bytes.
    var memoryCost: Int { get }
}

/// A ``PipelineStageCache``: a bounded ``MemoryCache`` in front of a ``DiskCache`` that
/// several caches (and processes) may share.
///
/// Memory lookups run on the caller's task; disk reads and writes as ``DiskStorable``
/// says, on the caller's task or the disk cache's blocking-I/O pool, and on its queue.
/// Bounded by the memory cache's byte limit and the disk cache's budget.
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
        return await diskValue(forKey: key)
    }

    /// The value on disk (which then fills memory), or `nil`; the memory tier is not asked.
    package func diskValue(forKey key: String) async -> Value? {
        let entry: StoredEntry?
        if Value.keepsExtendedData {
            entry = await disk.entry(forKey: key)
        } else {
            entry = await disk.data(forKey: key).map { StoredEntry(data: $0) }
        }
        guard let entry, let hit = Value(storedEntry: entry) else { return nil }
        memory.setValue(hit, forKey: key, cost: hit.memoryCost)
        return hit
    }

    /// In memory now, on disk in the background; a failed disk write only costs a later miss.
    package func store(_ value: Value, forKey key: String) {
        memory.setValue(value, forKey: key, cost: value.memoryCost)
        let entry = value.storedEntry
        disk.store(entry.data, extendedData: entry.extendedData, forKey: key)
    }

    /// In memory now; on disk only the extended data, in the background, after the writes
    /// queued before it and through the same bounded line (dropped when it is full). A value
    /// that keeps no extended data is stored whole.
    package func renew(_ value: Value, forKey key: String) {
        guard Value.keepsExtendedData else { return store(value, forKey: key) }
        memory.setValue(value, forKey: key, cost: value.memoryCost)
        disk.setExtendedDataInBackground(value.storedEntry.extendedData, forKey: key)
    }

    /// Waits for pending disk writes (graceful shutdown).
    package func flush() async { await disk.flush() }
}
