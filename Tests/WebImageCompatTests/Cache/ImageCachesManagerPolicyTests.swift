import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestSupport

@Suite("ImageCachesManager: store, remove, clear, contains and data policies", .timeLimit(.minutes(1)))
struct ImageCachesManagerPolicyTests {
    let image = RawRGBACoder.image(width: 4, height: 3, seed: 3)

    @Test("each store policy writes to the members it names, memory and disk", arguments: [
        (ImageCachesManager.OperationPolicy.all, [true, true, true]),
        (.highestOnly, [true, false, false]),
        (.lowestOnly, [false, false, true]),
    ])
    func storePolicy(policy: ImageCachesManager.OperationPolicy, expected: [Bool]) async throws {
        let f = try CacheChainFixture()
        #expect(f.chain.storePolicy == .all)  // the default
        f.chain.storePolicy = policy
        try await f.chain.store(image, data: nil, forKey: "k", cacheType: .all)
        for index in 0..<3 {
            let held = await f.holds("k", in: index)
            #expect(held.memory == expected[index] && held.disk == expected[index], "member \(index)")
        }
    }

    @Test("a store reports the first member's failure after all members finished")
    func storeFailure() async throws {
        let f = try CacheChainFixture(count: 2) { index, config in
            if index == 1 { config.coders = ImageCodersManager(coders: []) }  // cannot encode
        }
        let error = await #expect(throws: WebImageError.self) {
            try await f.chain.store(image, data: nil, forKey: "k", cacheType: .all)
        }
        #expect(error?.code == .encodingFailed)
        #expect(await f.holds("k", in: 0) == (true, true))
        // Without a completion the members log their own failures; flush waits for all of them.
        f.chain.store(image, data: nil, forKey: "k2", cacheType: .all, completion: nil)
        await f.chain.flush()
        #expect(await f.holds("k2", in: 0) == (true, true))
    }

    @Test("each remove policy removes from the members it names", arguments: [
        (ImageCachesManager.OperationPolicy.all, [false, false, false]),
        (.highestOnly, [false, true, true]),
        (.lowestOnly, [true, true, false]),
    ])
    func removePolicy(policy: ImageCachesManager.OperationPolicy, remaining: [Bool]) async throws {
        let f = try CacheChainFixture()
        for index in 0..<3 { try await f.put(image, forKey: "k", in: index) }
        f.chain.removePolicy = policy
        await f.chain.removeImage(forKey: "k", cacheType: .all)
        for index in 0..<3 {
            let held = await f.holds("k", in: index)
            #expect(held.memory == remaining[index] && held.disk == remaining[index], "member \(index)")
        }
    }

    @Test("each clear policy empties the members it names, only the caches cacheType names", arguments: [
        (ImageCachesManager.OperationPolicy.all, [false, false, false]),
        (.highestOnly, [false, true, true]),
        (.lowestOnly, [true, true, false]),
    ])
    func clearPolicy(policy: ImageCachesManager.OperationPolicy, remaining: [Bool]) async throws {
        let f = try CacheChainFixture()
        for index in 0..<3 { try await f.put(image, forKey: "k", in: index) }
        f.chain.clearPolicy = policy
        await f.chain.clear(cacheType: .memory)
        for index in 0..<3 {
            let held = await f.holds("k", in: index)
            #expect(held.memory == remaining[index] && held.disk, "member \(index)")
        }
        await f.chain.clear(cacheType: .all)
        for index in 0..<3 { #expect(await f.holds("k", in: index).disk == remaining[index], "member \(index)") }
    }

    @Test("contains: the first answer other than none in member order, per policy")
    func containsPolicies() async throws {
        let f = try CacheChainFixture()
        try await f.put(image, forKey: "k", in: 1)
        f.members[1].clearMemory()
        try await f.put(image, forKey: "k", in: 2, cacheType: .memory)
        #expect(f.chain.containsPolicy == .all)  // the default
        let expected: [(ImageCachesManager.ContainsPolicy, ImageCacheType)] = [
            (.all, .disk), (.serial, .disk), (.highestOnly, .none), (.lowestOnly, .memory),
        ]
        for (policy, answer) in expected {
            f.chain.containsPolicy = policy
            #expect(await f.chain.containsImage(forKey: "k", cacheType: .all) == answer, "\(policy)")
            #expect(await f.chain.containsImage(forKey: "none", cacheType: .all) == ImageCacheType.none, "\(policy)")
        }
        #expect(await ImageCachesManager().containsImage(forKey: "k", cacheType: .all) == ImageCacheType.none)
    }

    @Test("disk data and extended data come from the first member that has them")
    func dataLookups() async throws {
        let f = try CacheChainFixture()
        let second = try await f.put(RawRGBACoder.image(seed: 2), forKey: "k", in: 1)
        try await f.put(RawRGBACoder.image(seed: 3), forKey: "k", in: 2)
        #expect(await f.chain.awaitDiskData(forKey: "k") == second)
        #expect(await f.chain.awaitDiskData(forKey: "none") == nil)

        #expect((try? await f.members[2].awaitSetExtendedData(Data("third".utf8), forKey: "k").get()) != nil)
        #expect(await f.chain.awaitExtendedData(forKey: "k") == Data("third".utf8))
        #expect((try? await f.members[1].awaitSetExtendedData(Data("second".utf8), forKey: "k").get()) != nil)
        #expect(await f.chain.awaitExtendedData(forKey: "k") == Data("second".utf8))
    }

    @Test("extended data goes to every member with the entry; none having it is a failure")
    func setExtendedData() async throws {
        let f = try CacheChainFixture()
        try await f.put(image, forKey: "k", in: 1)
        try await f.put(image, forKey: "k", in: 2)
        #expect((try? await f.chain.awaitSetExtendedData(Data("v".utf8), forKey: "k").get()) != nil)
        #expect(await f.members[1].awaitExtendedData(forKey: "k") == Data("v".utf8))
        #expect(await f.members[2].awaitExtendedData(forKey: "k") == Data("v".utf8))
        #expect(await f.members[0].awaitDiskData(forKey: "k") == nil)

        let failed = await f.chain.awaitSetExtendedData(Data("v".utf8), forKey: "none")
        #expect(throws: WebImageError.self) { try failed.get() }
        let none = await ImageCachesManager().awaitSetExtendedData(nil, forKey: "k")
        #expect(throws: WebImageError.self) { try none.get() }
    }

    @Test("members can be added, removed and replaced; completions run on the caches' shared callback queue")
    func membersAndQueue() async throws {
        let f = try CacheChainFixture()
        let queue = ImageCachingCallbackQueue.shared
        let specific = DispatchSpecificKey<Int>()
        queue.setSpecific(key: specific, value: 1)
        let chain = ImageCachesManager()
        chain.addCache(f.members[0])
        chain.addCache(f.members[1])
        chain.removeCache(f.members[0])
        #expect(chain.caches.count == 1 && (chain.caches.first as? ImageCache) === f.members[1])
        let onQueue = await withCheckedContinuation { c in
            chain.containsImage(forKey: "k", cacheType: .all) { _ in
                c.resume(returning: DispatchQueue.getSpecific(key: specific) == 1)
            }
        }
        #expect(onQueue)
        chain.storePolicy = .highestOnly
        try await chain.store(image, data: nil, forKey: "k", cacheType: .all)
        #expect(await f.holds("k", in: 1) == (true, true))
        #expect(await f.holds("k", in: 0) == (false, false))
    }
}
