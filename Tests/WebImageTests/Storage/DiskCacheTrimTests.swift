import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("DiskCache: age and size limits", .timeLimit(.minutes(2)))
struct DiskCacheTrimTests {
    @Test("an entry read a day ago survives a two-day age while an untouched three-day-old one goes")
    func ageRuleUsesAccessDate() async throws {
        let dir = try TemporaryDirectory()
        let writer = DiskCache(directory: dir.url)
        try await writer.store(Data("read".utf8), forKey: "read")
        try await writer.store(Data("untouched".utf8), forKey: "untouched")
        // Both were written three days ago; "read" was read two days later.
        try TemporaryDirectory.age(writer.cachePath(forKey: "read"), secondsAgo: 3 * 86400)
        try TemporaryDirectory.age(writer.cachePath(forKey: "untouched"), secondsAgo: 3 * 86400)
        #expect(await writer.data(forKey: "read") != nil)
        try TemporaryDirectory.age(writer.cachePath(forKey: "read"), secondsAgo: 86400)

        let cache = DiskCache(directory: dir.url, config: .init(maxDiskAge: 2 * 86400))
        await cache.removeExpiredData()
        #expect(await cache.containsData(forKey: "read"))
        #expect(await cache.containsData(forKey: "untouched") == false)
    }

    @Test("a negative age never expires; zero expires everything")
    func ageExtremes() async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url, config: .init(maxDiskAge: -1))
        try await cache.store(Data("old".utf8), forKey: "old")
        try TemporaryDirectory.age(cache.cachePath(forKey: "old"), secondsAgo: 10 * 365 * 86400)
        await cache.removeExpiredData()
        #expect(await cache.totalCount() == 1)
        let strict = DiskCache(directory: dir.url, config: .init(maxDiskAge: 0))
        await strict.removeExpiredData()
        #expect(await strict.totalCount() == 0)
    }

    @Test("over the size limit, the least recently read go until half the limit remains")
    func sizeTrimKeepsMostRecentlyRead() async throws {
        let dir = try TemporaryDirectory()
        let writer = DiskCache(directory: dir.url)
        for i in 0..<10 {
            try await writer.store(Data(repeating: UInt8(i), count: 1000), forKey: "k\(i)")
            try TemporaryDirectory.age(writer.cachePath(forKey: "k\(i)"), secondsAgo: Double(100 - i))
        }
        // Reading the two oldest makes them the most recent.
        #expect(await writer.data(forKey: "k0") != nil)
        #expect(await writer.data(forKey: "k1") != nil)
        // A hit's access-date refresh is queued on the writer's I/O queue; another
        // instance sees it once the writer flushed (DiskCache.data(forKey:)).
        await writer.flush()

        let cache = DiskCache(directory: dir.url, config: .init(maxDiskSize: 8000))
        await cache.removeExpiredData()
        #expect(await cache.totalSize() <= 4000)
        #expect(await cache.totalCount() == 4)
        for kept in ["k0", "k1", "k9", "k8"] { #expect(await cache.containsData(forKey: kept), "\(kept)") }
    }

    @Test("opening a cache whose directory exceeds its limits trims it")
    func trimOnOpen() async throws {
        let dir = try TemporaryDirectory()
        let writer = DiskCache(directory: dir.url)
        for i in 0..<6 { try await writer.store(Data(repeating: 1, count: 500), forKey: "k\(i)") }
        try TemporaryDirectory.age(writer.cachePath(forKey: "k0"), secondsAgo: 30 * 86400)

        let opened = DiskCache(directory: dir.url, config: .init(maxDiskSize: 2000))
        // Queued behind the trim that opening scheduled.
        #expect(await opened.totalSize() <= 1000)
        #expect(await opened.containsData(forKey: "k0") == false)
        let aged = DiskCache(directory: dir.url, config: .init(maxDiskAge: 60))
        #expect(await aged.totalCount() == 2)
    }

    @Test("writes past the size limit trim without being asked")
    func writeTriggersTrim() async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url, config: .init(maxDiskSize: 10_000))
        for i in 0..<30 { try await cache.store(Data(repeating: 2, count: 1000), forKey: "k\(i)") }
        #expect(await cache.totalSize() <= 10_000)
        #expect(await cache.containsData(forKey: "k29"))
    }

    @Test("stale temporary files from a crashed writer are cleaned, fresh ones are left")
    func staleTemporaries() async throws {
        let dir = try TemporaryDirectory()
        let stale = dir.path + "/.tmp-stale1", fresh = dir.path + "/.tmp-fresh1"
        try Data("half".utf8).write(to: URL(fileURLWithPath: stale))
        try Data("half".utf8).write(to: URL(fileURLWithPath: fresh))
        try TemporaryDirectory.age(stale, secondsAgo: 2 * 3600)
        let cache = DiskCache(directory: dir.url)
        #expect(await cache.totalCount() == 0)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: fresh))
    }
}
