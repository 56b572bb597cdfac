import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("DiskCache: files, atomic writes, reads", .timeLimit(.minutes(2)))
struct DiskCacheTests {
    @Test("store then read back; the file is named by MD5 plus extension; counts are exact")
    func roundTrip() async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url.appendingPathComponent("ns"))
        let key = "https://example.com/a/photo.jpg?size=large"
        try await cache.store(Data("hello".utf8), forKey: key)
        try await cache.store(Data(repeating: 7, count: 1000), forKey: "other")
        #expect(await cache.data(forKey: key) == Data("hello".utf8))
        #expect(cache.cachePath(forKey: key) == dir.path + "/ns/" + CacheKey.fileName(for: key))
        #expect(cache.cachePath(forKey: key).hasSuffix(".jpg"))
        #expect(FileManager.default.fileExists(atPath: cache.cachePath(forKey: key)))
        #expect(await cache.totalCount() == 2)
        #expect(await cache.totalSize() == 1005)
        #expect(await cache.containsData(forKey: "other"))
        #expect(await cache.data(forKey: "missing") == nil)
        await cache.removeData(forKey: "other")
        #expect(await cache.containsData(forKey: "other") == false)
        #expect(await cache.totalCount() == 1)
        await cache.removeAll()
        #expect(await cache.totalCount() == 0 && cache.totalSizeIsZeroOnDisk)
    }

    /// A cache whose write line holds 100 bytes.
    static func cacheWithShortLine(in dir: TemporaryDirectory) -> DiskCache {
        var config = DiskCache.Config()
        config.maxQueuedWriteBytes = 100
        return DiskCache(directory: dir.url, config: config)
    }

    /// The results of callback-form writes, by name.
    final class WriteResults: Sendable {
        private let results = Mutex<[String: Result<Void, WebImageError>]>([:])
        /// A completion that records its result under `name`.
        func recording(_ name: String) -> @Sendable (Result<Void, WebImageError>) -> Void {
            { result in self.results.withLock { $0[name] = result } }
        }
        subscript(name: String) -> Result<Void, WebImageError>? { results.withLock { $0[name] } }
    }

    /// Stalls `cache`'s I/O queue (a stuck disk) until the returned semaphore is signalled.
    static func stall(_ cache: DiskCache) -> DispatchSemaphore {
        let gate = DispatchSemaphore(value: 0)
        cache.ioQueue.async { gate.wait() }
        return gate
    }

    @Test("the write line is bounded: past maxQueuedWriteBytes a write fails at once with cacheIOFailed; one larger than the limit goes alone")
    func boundedWriteLine() async throws {
        let dir = try TemporaryDirectory()
        let cache = Self.cacheWithShortLine(in: dir)
        let gate = Self.stall(cache)
        let results = DiskCacheTests.WriteResults()
        cache.store(Data(repeating: 1, count: 60), forKey: "a", completion: results.recording("a"))
        cache.store(Data(repeating: 2, count: 60), forKey: "b", completion: results.recording("b"))
        // Refused at once, on this thread: 60 + 60 would pass 100.
        guard case .failure(let refused)? = results["b"] else {
            Issue.record("the write past the line's limit was queued")
            gate.signal()
            return
        }
        #expect(refused.code == .cacheIOFailed && refused.message.contains("write line is full"))
        await #expect(throws: WebImageError.self) { try await cache.store(Data(repeating: 3, count: 41), forKey: "c") }
        cache.store(Data(repeating: 4, count: 40), forKey: "d", completion: results.recording("d"))   // exactly 100 queued
        #expect(results["d"] == nil, "within the limit: queued")
        gate.signal()
        await cache.flush()
        let (a, b, c, d) = (await cache.data(forKey: "a"), await cache.data(forKey: "b"),
                            await cache.data(forKey: "c"), await cache.data(forKey: "d"))
        #expect(a?.count == 60 && d?.count == 40)
        #expect(b == nil && c == nil)
        // With nothing queued, a write larger than the whole limit is taken.
        try await cache.store(Data(repeating: 5, count: 500), forKey: "big")
        #expect(await cache.data(forKey: "big")?.count == 500)
    }

    @Test("a renewal's extended data goes through the same bounded line: queued within maxQueuedWriteBytes, dropped past it, applied in order after the writes before it")
    func boundedRenewals() async throws {
        let dir = try TemporaryDirectory()
        let cache = Self.cacheWithShortLine(in: dir)
        try await cache.store(Data([1]), forKey: "old")
        let gate = Self.stall(cache)
        cache.store(Data(repeating: 2, count: 30), forKey: "new", completion: { _ in })
        // After the write queued before it: the entry exists by the time it runs.
        #expect(cache.setExtendedDataInBackground(Data(repeating: 65, count: 60), forKey: "new"))
        // 30 + 60 queued; 60 more would pass 100: dropped at once.
        #expect(!cache.setExtendedDataInBackground(Data(repeating: 66, count: 60), forKey: "old"))
        gate.signal()
        await cache.flush()
        #expect(await cache.extendedData(forKey: "new") == Data(repeating: 65, count: 60))
        #expect(await cache.extendedData(forKey: "old") == nil)
        // With the line empty again, it is taken.
        #expect(cache.setExtendedDataInBackground(Data(repeating: 67, count: 60), forKey: "old"))
        await cache.flush()
        #expect(await cache.extendedData(forKey: "old") == Data(repeating: 67, count: 60))
    }

    #if os(Linux)
    @Test("writes run at background priority: the I/O queue's thread has a nice value of at least 10 while the caller's is lower")
    func writesYieldToLoads() async throws {
        // The kernel's own answer for the calling thread (Linux's nice is per thread).
        @Sendable func threadNice() -> Int32 {
            getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        }
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url.appendingPathComponent("ns"))
        let seen = Mutex<(nice: Int32, result: Result<Void, WebImageError>)?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            cache.store(Data("x".utf8), forKey: "k") { result in
                seen.withLock { $0 = (threadNice(), result) }
                done.resume()
            }
        }
        let callerNice = threadNice()
        let writer = try #require(seen.withLock { $0 })
        guard case .success = writer.result else { Issue.record("the write failed: \(writer.result)"); return }
        #expect(writer.nice >= 10, "the write ran at nice \(writer.nice)")
        if callerNice < 10 { #expect(writer.nice > callerNice) }
        #expect(await cache.data(forKey: "k") == Data("x".utf8))
    }
    #endif

    @Test("maxQueuedWriteBytes is 128 MiB unless set, and at least 1")
    func writeLineLimit() {
        var config = DiskCache.Config()
        #expect(config.maxQueuedWriteBytes == 128 * 1024 * 1024)
        config.maxQueuedWriteBytes = 0
        #expect(config.maxQueuedWriteBytes == 1)
        config.maxQueuedWriteBytes = .min
        #expect(config.maxQueuedWriteBytes == 1)
    }

    @Test("replacing an entry leaves one file and no temporary files")
    func replaceLeavesNoTemporaries() async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url)
        for i in 0..<5 { try await cache.store(Data(repeating: UInt8(i), count: 100 + i), forKey: "k") }
        #expect(await cache.data(forKey: "k") == Data(repeating: 4, count: 104))
        #expect(TemporaryDirectory.names(in: dir.url) == [CacheKey.fileName(for: "k")])
    }

    @Test("a read refreshes the access date explicitly: data(forKey:), and entry(forKey:) as well",
          arguments: [false, true])
    func readRefreshesAccessDate(readsEntry: Bool) async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url)
        try await cache.store(Data("x".utf8), forKey: "k")
        let path = cache.cachePath(forKey: "k")
        try TemporaryDirectory.age(path, secondsAgo: 3 * 86400)
        if readsEntry {
            #expect(await cache.entry(forKey: "k")?.data == Data("x".utf8))
        } else {
            #expect(await cache.data(forKey: "k") == Data("x".utf8))
        }
        await cache.drainIOQueue()
        let date = try #require(FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
        #expect(abs(date.timeIntervalSinceNow) < 60)
    }

    @Test("a held-up I/O queue gets a read's follow-ups once per entry and at most maxQueuedFollowUps in all; a skipped one comes with the next read")
    func boundedFollowUps() async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url)
        let limit = DiskCache.maxQueuedFollowUps
        let keys = ["hot"] + (0..<(limit + 10)).map { "k\($0)" }
        for key in keys { try await cache.store(Data(key.utf8), forKey: key) }
        for key in keys { try TemporaryDirectory.age(cache.cachePath(forKey: key), secondsAgo: 3 * 86400) }
        let gate = DispatchSemaphore(value: 0)
        cache.ioQueue.async { gate.wait() }   // a disk held up by a long write
        // Reads served without the queue go on; a hot entry's refresh is queued once.
        for _ in 0..<500 { #expect(cache.readDataSync(forKey: "hot") == Data("hot".utf8)) }
        #expect(cache.queuedFollowUps.withLock { $0.count } == 1)
        for key in keys.dropFirst() { _ = cache.readDataSync(forKey: key) }
        #expect(cache.queuedFollowUps.withLock { $0.count } == limit, "bounded: the reads past the limit queued nothing")
        gate.signal()
        await cache.drainIOQueue()
        #expect(cache.queuedFollowUps.withLock { $0.count } == 0)
        func age(_ key: String) throws -> TimeInterval {
            let date = try #require(FileManager.default.attributesOfItem(atPath: cache.cachePath(forKey: key))[.modificationDate] as? Date)
            return -date.timeIntervalSinceNow
        }
        #expect(try age("hot") < 60 && age("k0") < 60)
        // The last keys found the line full: still old, until their next read.
        let skipped = try #require(keys.last)
        #expect(try age(skipped) > 86400)
        _ = cache.readDataSync(forKey: skipped)
        await cache.drainIOQueue()
        #expect(try age(skipped) < 60)
    }

    @Test("a read does not wait behind the I/O queue (a long trim or write)")
    func readDoesNotWaitForIOQueue() async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url)
        try await cache.store(Data("x".utf8), forKey: "k")
        let release = DispatchSemaphore(value: 0)
        cache.ioQueue.async { release.wait() }
        #expect(await cache.data(forKey: "k") == Data("x".utf8))
        #expect(await cache.data(forKey: "missing") == nil)
        release.signal()
    }

    /// Stores an entry for `key`, then turns its file into a symlink loop, which fails to
    /// open even for root (root ignores permission bits). Returns the entry's path.
    @discardableResult
    static func storeUnreadableEntry(in cache: DiskCache, forKey key: String) async throws -> String {
        try await cache.store(Data("x".utf8), forKey: key)
        let path = cache.cachePath(forKey: key)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: path)
        return path
    }

    @Test("an entry that cannot be read is a miss and is removed")
    func unreadableFileIsRemoved() async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url)
        let path = try await Self.storeUnreadableEntry(in: cache, forKey: "k")
        #expect(await cache.data(forKey: "k") == nil)
        await cache.drainIOQueue()
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == nil)
        #expect(TemporaryDirectory.names(in: dir.url).isEmpty)
    }

    @Test("an unreadable entry replaced before its queued removal runs is kept")
    func replacedUnreadableFileIsKept() async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url)
        try await Self.storeUnreadableEntry(in: cache, forKey: "k")
        let release = DispatchSemaphore(value: 0)
        cache.ioQueue.async { release.wait() }
        #expect(await cache.data(forKey: "k") == nil)
        // Another process (or cache on the directory) writes a good entry meanwhile.
        let other = DiskCache(directory: dir.url)
        try await other.store(Data("good".utf8), forKey: "k")
        release.signal()
        await cache.drainIOQueue()
        #expect(await cache.data(forKey: "k") == Data("good".utf8))
    }

    @Test("additional cache paths are searched read-only after the main directory")
    func additionalPaths() async throws {
        let dir = try TemporaryDirectory()
        let extra = dir.url.appendingPathComponent("prefilled")
        let seed = DiskCache(directory: extra)
        try await seed.store(Data("seeded".utf8), forKey: "a")
        let extraFile = seed.cachePath(forKey: "a")
        try TemporaryDirectory.age(extraFile, secondsAgo: 30 * 86400)
        let cache = DiskCache(directory: dir.url.appendingPathComponent("main"),
                              config: .init(maxDiskAge: 86400, additionalCachePaths: [extra.path]))
        #expect(await cache.data(forKey: "a") == Data("seeded".utf8))
        #expect(await cache.containsData(forKey: "a"))
        #expect(await cache.totalCount() == 0)
        await cache.removeExpiredData()
        await cache.removeData(forKey: "a")
        await cache.removeAll()
        #expect(FileManager.default.fileExists(atPath: extraFile))
        let date = try #require(FileManager.default.attributesOfItem(atPath: extraFile)[.modificationDate] as? Date)
        #expect(date.timeIntervalSinceNow < -29 * 86400)
        try await cache.store(Data("own".utf8), forKey: "a")
        #expect(await cache.data(forKey: "a") == Data("own".utf8))
    }

    @Test("two caches on one directory writing and reading the same keys never see a partial file")
    func concurrentCachesNeverSeePartialFiles() async throws {
        let dir = try TemporaryDirectory()
        let caches = [DiskCache(directory: dir.url), DiskCache(directory: dir.url)]
        // Each payload is one repeated byte with its length inside it, so any mix or cut shows.
        func payload(_ n: Int) -> Data {
            var data = Data(repeating: UInt8(n % 251), count: 64 * 1024 + n * 4099)
            data.replaceSubrange(0..<8, with: withUnsafeBytes(of: data.count.bigEndian) { Data($0) })
            return data
        }
        func isWhole(_ data: Data) -> Bool {
            guard data.count > 8 else { return false }
            let length = data.prefix(8).reduce(0) { $0 << 8 | Int($1) }
            let fill = data[8]
            return length == data.count && data.dropFirst(8).allSatisfy { $0 == fill }
        }
        let keys = (0..<4).map { "http://host/image\($0).png" }
        let partial = await withTaskGroup(of: Int.self) { group in
            for (c, cache) in caches.enumerated() {
                group.addTask {
                    for i in 0..<40 { try? await cache.store(payload(i * 2 + c), forKey: keys[i % keys.count]) }
                    return 0
                }
                group.addTask {
                    var bad = 0
                    for i in 0..<200 {
                        if let data = await cache.data(forKey: keys[i % keys.count]), !isWhole(data) { bad += 1 }
                        // A read does not suspend, so without this the loop (slow in a debug
                        // build) would hold a cooperative thread and starve other suites.
                        await Task.yield()
                    }
                    return bad
                }
            }
            return await group.reduce(0, +)
        }
        #expect(partial == 0)
        for key in keys {
            let data = try #require(await caches[0].data(forKey: key))
            #expect(isWhole(data))
        }
        #expect(await caches[1].totalCount() == keys.count)
    }

    @Test("the default directory follows XDG_CACHE_HOME")
    func defaultDirectory() {
        let url = DiskCache.defaultDirectory(namespace: "ns")
        let xdg = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
        if let xdg, xdg.hasPrefix("/") {
            #expect(url.path == URL(fileURLWithPath: xdg).appendingPathComponent("webimage/ns").path)
        } else {
            #expect(url.path.hasSuffix("/.cache/webimage/ns"))
        }
    }
}

extension DiskCache {
    /// Whether the main directory holds no files at all (hidden ones included).
    fileprivate var totalSizeIsZeroOnDisk: Bool {
        TemporaryDirectory.names(in: directory).isEmpty
    }
}

extension DiskCache {
    /// Returns once everything queued on ``ioQueue`` so far has run (reads queue their
    /// access-date refresh and unreadable-file removal there without waiting).
    func drainIOQueue() async {
        await withCheckedContinuation { continuation in ioQueue.async { continuation.resume() } }
    }
}
