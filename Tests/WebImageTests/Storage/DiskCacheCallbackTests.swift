import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// The callback forms of `DiskCache` (DiskCache+Callbacks), each against what the `async`
/// form or the files themselves say.
@Suite("DiskCache: the callback forms", .timeLimit(.minutes(2)))
struct DiskCacheCallbackTests {
    /// `body`'s one completion, awaited.
    static func answer<T: Sendable>(_ body: (@escaping @Sendable (T) -> Void) -> Void) async -> T {
        await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in body { done.resume(returning: $0) } }
    }

    @Test("data, extendedData and containsData answer what was stored, and nil or false for a key never stored")
    func reads() async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url.appendingPathComponent("ns"))
        try await cache.store(Data("bytes".utf8), forKey: "k")
        try await cache.setExtendedData(Data("meta".utf8), forKey: "k")
        #expect(await Self.answer { cache.data(forKey: "k", completion: $0) } == Data("bytes".utf8))
        #expect(await Self.answer { cache.data(forKey: "absent", completion: $0) } == nil)
        #expect(await Self.answer { cache.extendedData(forKey: "k", completion: $0) } == Data("meta".utf8))
        #expect(await Self.answer { cache.extendedData(forKey: "absent", completion: $0) } == nil)
        #expect(await Self.answer { cache.containsData(forKey: "k", completion: $0) })
        #expect(await Self.answer { cache.containsData(forKey: "absent", completion: $0) } == false)
    }

    @Test("setExtendedData attaches and removes; on a key with no entry it fails with cacheIOFailed")
    func setExtendedData() async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url.appendingPathComponent("ns"))
        try await cache.store(Data("bytes".utf8), forKey: "k")
        let set = await Self.answer { cache.setExtendedData(Data("meta".utf8), forKey: "k", completion: $0) }
        #expect((try? set.get()) != nil)
        #expect(await cache.extendedData(forKey: "k") == Data("meta".utf8))
        let removed = await Self.answer { cache.setExtendedData(nil, forKey: "k", completion: $0) }
        #expect((try? removed.get()) != nil)
        #expect(await cache.extendedData(forKey: "k") == nil)
        #expect(await cache.data(forKey: "k") == Data("bytes".utf8), "the entry itself stays")
        let missing = await Self.answer { cache.setExtendedData(Data("x".utf8), forKey: "absent", completion: $0) }
        guard case .failure(let error) = missing else {
            Issue.record("extended data was set on a key with no entry")
            return
        }
        #expect(error.code == .cacheIOFailed)
    }

    @Test("setExtendedData with a completion goes through the bounded write line: refused at once past maxQueuedWriteBytes, applied after the writes before it")
    func setExtendedDataBounded() async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCacheTests.cacheWithShortLine(in: dir)
        let gate = DiskCacheTests.stall(cache)
        let results = DiskCacheTests.WriteResults()
        cache.store(Data(repeating: 1, count: 30), forKey: "entry", completion: results.recording("entry"))
        // Queued behind the entry's write, which makes the entry it needs.
        cache.setExtendedData(Data(repeating: 65, count: 60), forKey: "entry", completion: results.recording("first"))
        #expect(results["first"] == nil, "within the limit: queued")
        // 30 + 60 queued; 60 more would pass 100.
        cache.setExtendedData(Data(repeating: 66, count: 60), forKey: "entry", completion: results.recording("second"))
        guard case .failure(let refused)? = results["second"] else {
            Issue.record("extended data past the line's limit was queued")
            gate.signal()
            return
        }
        #expect(refused.code == .cacheIOFailed && refused.message.contains("write line is full"))
        gate.signal()
        await cache.flush()
        #expect((try? results["first"]?.get()) != nil)
        #expect(await cache.extendedData(forKey: "entry") == Data(repeating: 65, count: 60))
    }

    @Test("removeData, removeExpiredData and removeAll remove what they say, in order after the writes queued before them")
    func removals() async throws {
        let dir = try TemporaryDirectory()
        let writer = DiskCache(directory: dir.url)
        for key in ["old", "fresh", "gone"] { try await writer.store(Data(key.utf8), forKey: key) }
        try TemporaryDirectory.age(writer.cachePath(forKey: "old"), secondsAgo: 3 * 86400)
        let cache = DiskCache(directory: dir.url, config: .init(maxDiskAge: 2 * 86400))
        await cache.flush()   // the sweep an open queues
        try await cache.store(Data("old".utf8), forKey: "old")
        try TemporaryDirectory.age(cache.cachePath(forKey: "old"), secondsAgo: 3 * 86400)
        // A write queued with a completion, then its removal: the removal runs after it.
        cache.store(Data("late".utf8), forKey: "late", completion: nil)
        await Self.answer { (done: @escaping @Sendable (()) -> Void) in cache.removeData(forKey: "late") { done(()) } }
        #expect(await cache.containsData(forKey: "late") == false)
        await Self.answer { (done: @escaping @Sendable (()) -> Void) in cache.removeData(forKey: "gone") { done(()) } }
        #expect(await cache.containsData(forKey: "gone") == false)
        await Self.answer { (done: @escaping @Sendable (()) -> Void) in cache.removeExpiredData { done(()) } }
        #expect(await cache.containsData(forKey: "old") == false, "older than maxDiskAge")
        #expect(await cache.containsData(forKey: "fresh"))
        await Self.answer { (done: @escaping @Sendable (()) -> Void) in cache.removeAll { done(()) } }
        #expect(await cache.totalCount() == 0)
    }
}
