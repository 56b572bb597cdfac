import Foundation
import WebImage

/// Encoded proxy results by key (settings fingerprint + signed path + output choice), and
/// `/info` answers by theirs (`info#` + fingerprint + signed path): bounded memory caches
/// in front of one ``DiskCache`` that several processes may share, bounded with the
/// source cache by one ``WebImage/DiskBudget``. Info answers get a sixteenth of the memory bytes
/// (a JSON answer is a few hundred bytes).
///
/// Memory lookups run on the caller's task; disk reads and writes run on the library's
/// blocking-I/O pool (inside ``DiskCache``).
final class ResultCache: Sendable {
    let memory: MemoryCache<String, RenderedImage>
    let infoMemory: MemoryCache<String, InfoResult>
    let disk: DiskCache

    init(disk: DiskCache, memoryBytes: Int) {
        memory = MemoryCache(totalCostLimit: max(1, memoryBytes))
        infoMemory = MemoryCache(totalCostLimit: max(1, memoryBytes / 16))
        self.disk = disk
    }

    /// From memory, else from disk (then kept in memory too).
    func value(forKey key: String) async -> RenderedImage? {
        if let hit = memory.value(forKey: key) { return hit }
        guard let data = await disk.data(forKey: key), let hit = RenderedImage(serialized: data) else { return nil }
        memory.setValue(hit, forKey: key, cost: hit.data.count)
        return hit
    }

    /// Stores in memory now and on disk in the background; a failed disk write only
    /// costs a later miss.
    func store(_ value: RenderedImage, forKey key: String) {
        memory.setValue(value, forKey: key, cost: value.data.count)
        disk.store(value.serialized, forKey: key)
    }

    /// An info answer from memory, else from disk.
    func info(forKey key: String) async -> InfoResult? {
        if let hit = infoMemory.value(forKey: key) { return hit }
        guard let data = await disk.data(forKey: key), let hit = InfoResult(serialized: data) else { return nil }
        infoMemory.setValue(hit, forKey: key, cost: hit.json.count + 64)
        return hit
    }

    /// Stores an info answer in memory now and on disk in the background.
    func storeInfo(_ value: InfoResult, forKey key: String) {
        infoMemory.setValue(value, forKey: key, cost: value.json.count + 64)
        disk.store(value.serialized, forKey: key)
    }

    /// Waits for pending disk writes (graceful shutdown).
    func flush() async { await disk.flush() }
}
