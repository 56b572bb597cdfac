import Foundation
import Testing
@testable import WebImage

/// One size and age budget over several disk caches and processes (``DiskBudget``), on
/// the real file system: floods of writes never leave the root over its limit.
@Suite("DiskBudget: one limit for several caches", .timeLimit(.minutes(1)))
struct DiskBudgetTests {
    static func root() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("webimage-budget-\(UUID().uuidString)", isDirectory: true)
    }

    /// Bytes of regular, non-hidden files under `root` (what the budget counts), and of all files.
    static func usage(_ root: URL) -> (entries: Int, all: Int) {
        var entries = 0, all = 0
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
        while let url = files?.nextObject() as? URL {
            guard let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey]),
                  values.isRegularFile == true, let size = values.fileSize else { continue }
            all += size
            if url.lastPathComponent.first != "." { entries += size }
        }
        return (entries, all)
    }

    static func caches(_ root: URL, _ budget: DiskBudget) -> [DiskCache] {
        ["sources", "results"].map { name in
            var config = DiskCache.Config()
            config.budget = budget
            return DiskCache(directory: root.appendingPathComponent(name), config: config)
        }
    }

    @Test("two caches under one root stay within the shared limit after every batch")
    func floodStaysWithinLimit() async throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(at: root) }
        let limit = 200_000
        let budget = DiskBudget(root: root, maxBytes: limit, maxAge: -1)
        let caches = Self.caches(root, budget)
        for batch in 0..<10 {
            for i in 0..<20 {
                let data = Data(repeating: UInt8(i), count: 3_000 + 97 * i)
                caches[i % 2].store(data, forKey: "batch\(batch)-\(i)", completion: nil)
            }
            for cache in caches { await cache.flush() }
            let used = Self.usage(root).entries
            #expect(used <= limit, "batch \(batch): \(used) bytes")
            #expect(budget.currentBytes() == used, "the ledger agrees with the directory")
        }
        // The most recent entries survived the trims.
        #expect(await caches[1].data(forKey: "batch9-19") != nil)
    }

    @Test("two budgets on one root (two processes' view) share the ledger and the limit")
    func twoInstancesShareTheLimit() async throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(at: root) }
        let limit = 100_000
        let first = Self.caches(root, DiskBudget(root: root, maxBytes: limit, maxAge: -1))
        let second = Self.caches(root, DiskBudget(root: root, maxBytes: limit, maxAge: -1))
        for i in 0..<120 {
            let cache = (i % 2 == 0 ? first : second)[i % 4 / 2]
            cache.store(Data(repeating: 7, count: 2_500), forKey: "k\(i)", completion: nil)
            if i % 10 == 9 {
                for cache in first + second { await cache.flush() }
                #expect(Self.usage(root).entries <= limit)
            }
        }
        #expect(Self.usage(root).entries > limit / 2, "trims go to 80 %, not to nothing")
    }

    @Test("entries unread for longer than maxAge are removed by the next write's sweep")
    func ageSweep() async throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(at: root) }
        let budget = DiskBudget(root: root, maxBytes: 0, maxAge: 2)
        let cache = Self.caches(root, budget)[0]
        try await cache.store(Data(repeating: 1, count: 100), forKey: "old")
        // Age the entry: its access date is its modification time.
        let old = cache.cachePath(forKey: "old")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: old)
        try await Task.sleep(for: .seconds(1.2))  // past the sweep interval (maxAge / 10, at least 1 s)
        try await cache.store(Data(repeating: 2, count: 100), forKey: "new")
        #expect(!FileManager.default.fileExists(atPath: old))
        #expect(await cache.data(forKey: "new") != nil)
    }
}
