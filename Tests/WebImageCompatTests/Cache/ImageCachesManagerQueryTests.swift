import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestSupport

@Suite("ImageCachesManager: queries", .timeLimit(.minutes(1)))
struct ImageCachesManagerQueryTests {
    let red = RawRGBACoder.image(width: 4, height: 3, seed: 1)
    let blue = RawRGBACoder.image(width: 4, height: 3, seed: 2)

    @Test("serial: the first hit wins and later members are not asked")
    func serialFirstHitWins() async throws {
        let f = try CacheChainFixture()
        let counted = f.members.map { CountingCache($0) }
        f.chain.caches = counted
        try await f.put(red, forKey: "k", in: 0)
        try await f.put(blue, forKey: "k", in: 1)
        let hit = try await f.chain.queryImage(forKey: "k")
        #expect(hit.cacheType == .memory && hit.image == red)
        #expect(counted.map(\.queries) == [1, 0, 0])
        #expect(f.chain.imageFromMemory(forKey: "k") == red)
    }

    @Test("serial: a miss in the first member, a disk hit in the second; nothing is copied by default")
    func missThenHit() async throws {
        let f = try CacheChainFixture()
        let counted = f.members.map { CountingCache($0) }
        f.chain.caches = counted
        let data = try await f.put(blue, forKey: "k", in: 1)
        f.members[1].clearMemory()
        let hit = try await f.chain.queryImage(forKey: "k")
        #expect(hit.cacheType == .disk && hit.image?.pixels == blue.pixels && hit.data == data)
        #expect(counted.map(\.queries) == [1, 1, 0])
        await f.chain.flush()
        #expect(await f.holds("k", in: 0) == (false, false))
        #expect(f.chain.imageFromMemory(forKey: "k")?.pixels == blue.pixels)  // the second member kept it

        let miss = try await f.chain.queryImage(forKey: "none")
        #expect(miss.cacheType == ImageCacheType.none && miss.image == nil)
        #expect(counted.map(\.queries) == [2, 2, 1])
    }

    @Test("promotesHits copies a disk hit into the earlier members' memory and disk, not the later ones")
    func promotesDiskHit() async throws {
        let f = try CacheChainFixture()
        f.chain.promotesHits = true
        let data = try await f.put(blue, forKey: "k", in: 1)
        f.members[1].clearMemory()
        #expect(try await f.chain.queryImage(forKey: "k").cacheType == .disk)
        #expect(f.members[0].imageFromMemory(forKey: "k")?.pixels == blue.pixels)  // copied before the completion ran
        await f.chain.flush()
        #expect(await f.members[0].diskImageData(forKey: "k") == data)
        #expect(await f.holds("k", in: 2) == (false, false))
        // Now the first member answers.
        #expect(try await f.chain.queryImage(forKey: "k").cacheType == .memory)
    }

    @Test("promotesHits copies a memory hit without data only into earlier memory")
    func promotesMemoryHit() async throws {
        let f = try CacheChainFixture()
        f.chain.promotesHits = true
        try await f.put(blue, forKey: "k", in: 2, cacheType: .memory)
        #expect(try await f.chain.queryImage(forKey: "k").cacheType == .memory)
        await f.chain.flush()
        #expect(await f.holds("k", in: 0) == (true, false))
        #expect(await f.holds("k", in: 1) == (true, false))
    }

    @Test("highestOnly asks only the first member, lowestOnly only the last")
    func highestAndLowestOnly() async throws {
        let f = try CacheChainFixture()
        try await f.put(red, forKey: "k", in: 1)
        f.chain.queryPolicy = .highestOnly
        #expect(try await f.chain.queryImage(forKey: "k").image == nil)
        #expect(f.chain.imageFromMemory(forKey: "k") == nil)
        f.chain.queryPolicy = .lowestOnly
        #expect(try await f.chain.queryImage(forKey: "k").image == nil)
        try await f.put(blue, forKey: "k", in: 2)
        #expect(try await f.chain.queryImage(forKey: "k").image == blue)
    }

    @Test("concurrent asks every member and still returns the first hit in list order")
    func concurrentListOrder() async throws {
        let f = try CacheChainFixture()
        let counted = f.members.map { CountingCache($0) }
        f.chain.caches = counted
        f.chain.queryPolicy = .concurrent
        // The second member answers from disk (slower) and must still beat the third's memory hit.
        try await f.put(red, forKey: "k", in: 1)
        f.members[1].clearMemory()
        try await f.put(blue, forKey: "k", in: 2)
        let hit = try await f.chain.queryImage(forKey: "k")
        #expect(hit.cacheType == .disk && hit.image?.pixels == red.pixels)
        #expect(counted.map(\.queries) == [1, 1, 1])
        #expect(try await f.chain.queryImage(forKey: "none").image == nil)
    }

    @Test("queryMemorySync completes before queryImage returns; otherwise on the context's queue")
    func memorySyncAndQueues() async throws {
        let f = try CacheChainFixture()
        try await f.put(red, forKey: "first", in: 0)
        try await f.put(blue, forKey: "third", in: 2, cacheType: .memory)
        for (key, options) in [("first", WebImageOptions.queryMemorySync), ("third", [.queryMemorySync, .queryMemoryOnly])] {
            let inline = Mutex<ImageCacheType?>(nil)
            f.chain.queryImage(forKey: key, options: options) { result in inline.withLock { $0 = try? result.get().cacheType } }
            #expect(inline.withLock { $0 } == .memory, "\(key)")
        }

        let queue = DispatchQueue(label: "test.chain.callbacks")
        let specific = DispatchSpecificKey<Int>()
        queue.setSpecific(key: specific, value: 1)
        var context = WebImageContext()
        context.callbackQueue = queue
        let onQueue = try await withCheckedThrowingContinuation { (c: CheckedContinuation<Bool, any Error>) in
            f.chain.queryImage(forKey: "third", context: context) { result in
                c.resume(with: result.map { _ in DispatchQueue.getSpecific(key: specific) == 1 })
            }
        }
        #expect(onQueue)
    }

    @Test("cancelling a chained query cancels the running member and delivers cancelled once", arguments: [
        ImageCachesManager.QueryPolicy.serial, .concurrent,
    ])
    func cancelDeliversOnce(policy: ImageCachesManager.QueryPolicy) async throws {
        let f = try CacheChainFixture()
        // The first member misses; the second holds its query until it is cancelled.
        let held = CountingCache(f.members[1], holdsQueries: true)
        let last = CountingCache(f.members[2])
        f.chain.caches = [f.members[0], held, last]
        f.chain.queryPolicy = policy
        let calls = Mutex<[Result<ImageCacheQueryResult, WebImageError>]>([])
        let queue = DispatchQueue(label: "test.chain.cancel")
        var context = WebImageContext()
        context.callbackQueue = queue
        let operation = f.chain.queryImage(forKey: "k", context: context) { result in
            calls.withLock { $0.append(result) }
        }
        #expect(await eventually { held.queries == 1 })  // past the first member's miss
        #expect(!operation.isFinished)
        operation.cancel()
        operation.cancel()
        #expect(operation.isCancelled && operation.isFinished)
        #expect(held.heldOperations.first?.isCancelled == true)
        try await Task.sleep(for: .milliseconds(50))
        await withCheckedContinuation { c in queue.async { c.resume() } }
        #expect(last.queries == (policy == .serial ? 0 : 1))
        let delivered = calls.withLock { $0 }
        #expect(delivered.count == 1)
        if case .failure(let error) = delivered.first { #expect(error.code == .cancelled) } else { Issue.record("not cancelled") }
    }

    @Test("many concurrent queries through the chain, promoting as they go, all get the image", arguments: [
        ImageCachesManager.QueryPolicy.serial, .concurrent,
    ])
    func concurrentQueries(policy: ImageCachesManager.QueryPolicy) async throws {
        let f = try CacheChainFixture()
        f.chain.queryPolicy = policy
        f.chain.promotesHits = true
        let image = RawRGBACoder.image(width: 16, height: 16, seed: 9)
        try await f.put(image, forKey: "k", in: 2)
        f.members[2].clearMemory()
        let chain = f.chain
        let hits = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask { try await chain.queryImage(forKey: "k").image?.pixels == image.pixels }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(hits == 50)
        await f.chain.flush()
        #expect(await f.holds("k", in: 0) == (true, true))
        #expect(await f.holds("k", in: 1) == (true, true))
    }

    @Test("the async query with no member is a miss; task cancellation throws cancelled")
    func emptyAndTaskCancellation() async throws {
        let empty = ImageCachesManager()
        #expect(try await empty.queryImage(forKey: "k").cacheType == ImageCacheType.none)
        let f = try CacheChainFixture()
        try await f.put(red, forKey: "k", in: 1)
        let chain = f.chain
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await chain.queryImage(forKey: "k")
        }
        let error = await #expect(throws: WebImageError.self) { try await task.value }
        #expect(error?.code == .cancelled)
    }
}
