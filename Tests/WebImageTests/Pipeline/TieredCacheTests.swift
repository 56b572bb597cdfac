import Foundation
import Testing
@testable import WebImage

/// The server stages' cache: memory in front of a disk cache.
@Suite("TieredCache: memory in front of disk", .timeLimit(.minutes(1)))
struct TieredCacheTests {
    /// A value with a disk form written in the test: a tag byte, then the bytes.
    struct Blob: DiskStorable, Equatable {
        var bytes: Data
        static var keepsExtendedData: Bool { false }
        var storedEntry: StoredEntry { StoredEntry(data: Data([0xB1]) + bytes) }
        init(bytes: Data) { self.bytes = bytes }
        init?(storedEntry entry: StoredEntry) {
            guard entry.data.first == 0xB1 else { return nil }
            bytes = Data(entry.data.dropFirst())
        }
        var memoryCost: Int { bytes.count }
    }

    static func disk() -> (DiskCache, URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tiered-\(UUID().uuidString)")
        return (DiskCache(directory: root), root)
    }

    @Test("a stored value is in memory at once and on disk after a flush; another cache on the same disk reads it and keeps it in memory")
    func storeAndRead() async throws {
        let (disk, root) = Self.disk()
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = TieredCache<Blob>(disk: disk, memoryBytes: 1 << 20)
        let blob = Blob(bytes: Data(repeating: 7, count: 1000))
        cache.store(blob, forKey: "a")
        #expect(cache.memoryValue(forKey: "a") == blob)
        await cache.flush()
        #expect(await disk.data(forKey: "a") == Data([0xB1]) + blob.bytes)
        let other = TieredCache<Blob>(disk: disk, memoryBytes: 1 << 20)
        #expect(other.memoryValue(forKey: "a") == nil)
        #expect(await other.storedValue(forKey: "a") == blob)
        #expect(other.memoryValue(forKey: "a") == blob)
    }

    @Test("an entry that does not read back (damaged, foreign) is a miss")
    func damagedIsMiss() async throws {
        let (disk, root) = Self.disk()
        defer { try? FileManager.default.removeItem(at: root) }
        try await disk.store(Data("not a blob".utf8), forKey: "a")
        let cache = TieredCache<Blob>(disk: disk, memoryBytes: 1 << 20)
        #expect(await cache.storedValue(forKey: "a") == nil)
        #expect(cache.memoryValue(forKey: "a") == nil)
    }

    @Test("a flood of values keeps the memory tier under its byte limit")
    func memoryBounded() async throws {
        let (disk, root) = Self.disk()
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = TieredCache<Blob>(disk: disk, memoryBytes: 64 * 1024)
        for i in 0..<200 { cache.store(Blob(bytes: Data(repeating: UInt8(i % 256), count: 4096)), forKey: "k\(i)") }
        #expect(cache.memory.totalCost <= 64 * 1024)
        let kept = (0..<200).filter { cache.memoryValue(forKey: "k\($0)") != nil }.count
        #expect(kept > 0 && kept <= 16)
        await cache.flush()
        // Every value is still on disk.
        #expect(await cache.storedValue(forKey: "k0")?.bytes.first == 0)
    }
}
