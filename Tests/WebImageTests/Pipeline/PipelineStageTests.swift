import Foundation
import Synchronization
import Testing
@testable import WebImage

/// The stage the server's source, result and `/info` stages are instances of: memory
/// first without a run, then one run per key that reads the slower tier and makes the
/// value only on a miss, storing what `make` says to.
@Suite("PipelineStage: cache, one run per key, store", .timeLimit(.minutes(1)))
struct PipelineStageTests {
    /// A two-tier cache that counts what the stage asks of it.
    final class CountingCache: PipelineStageCache, Sendable {
        struct State {
            var memory: [String: Int] = [:]
            var slow: [String: Int] = [:]
            var slowReads = 0
            var stores: [String: Int] = [:]
            var renewals: [String: Int] = [:]
        }
        let state = Mutex(State())
        func memoryValue(forKey key: String) -> Int? { state.withLock { $0.memory[key] } }
        func storedValue(forKey key: String) async -> Int? {
            state.withLock { s in
                s.slowReads += 1
                return s.memory[key] ?? s.slow[key]
            }
        }
        func store(_ value: Int, forKey key: String) {
            state.withLock { s in
                s.memory[key] = value
                s.stores[key, default: 0] += 1
            }
        }
        func renew(_ value: Int, forKey key: String) {
            state.withLock { s in
                s.memory[key] = value
                s.renewals[key, default: 0] += 1
            }
        }
    }

    /// A `make` that waits until the test opens it, counting its runs and what it was given.
    final class Maker: Sendable {
        let state = Mutex((open: false, runs: 0, given: [Int?]()))
        var runs: Int { state.withLock { $0.runs } }
        var given: [Int?] { state.withLock { $0.given } }
        func open() { state.withLock { $0.open = true } }

        func make(_ value: Int, store: PipelineStage<Int, WaitError>.Store = .value) -> @Sendable (Int?) async throws(WaitError) -> PipelineStage<Int, WaitError>.Made {
            { [self] stored throws(WaitError) in
                state.withLock { $0.runs += 1; $0.given.append(stored) }
                while !state.withLock({ $0.open }) {
                    do { try await Task.sleep(for: .milliseconds(2)) } catch { throw .cancelled }
                }
                return .init(value, store: store)
            }
        }
    }

    /// Counts the stage's answers from its cache.
    final class Hits: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    typealias Made = PipelineStage<Int, WaitError>.Made

    static func stage(_ cache: CountingCache?, hits: Hits = Hits()) -> PipelineStage<Int, WaitError> {
        PipelineStage(cache: cache, waitFailure: { $0 }, onStoredHit: { hits.add() })
    }

    @Test("a memory hit answers without a run and without reading the slower tier")
    func memoryHit() async throws {
        let cache = CountingCache()
        cache.state.withLock { $0.memory["k"] = 7 }
        let hits = Hits()
        let stage = Self.stage(cache, hits: hits)
        let maker = Maker()
        #expect(try await stage.value(forKey: "k", make: maker.make(1)) == 7)
        #expect(stage.startedCount == 0 && maker.runs == 0 && cache.state.withLock { $0.slowReads } == 0)
        #expect(hits.value == 1)
    }

    @Test("concurrent callers of a cold key share one slow read, one make and one store")
    func coldKeyOneRun() async throws {
        let cache = CountingCache()
        let stage = Self.stage(cache)
        let maker = Maker()
        let callers = (0..<20).map { _ in Task { try await stage.value(forKey: "k", make: maker.make(5)) } }
        try await SingleFlightTests.waitUntil { maker.runs == 1 }
        maker.open()
        for caller in callers { #expect(try await caller.value == 5) }
        #expect(maker.runs == 1 && stage.startedCount == 1 && stage.runningCount == 0)
        #expect(cache.state.withLock { ($0.slowReads, $0.stores["k"]) } == (1, 1))
        // Stored: the next caller is a memory hit.
        #expect(try await stage.value(forKey: "k", make: maker.make(6)) == 5)
        #expect(maker.runs == 1)
    }

    @Test("unshared callers each run the lookup and make on their own task, in the cache they name")
    func unshared() async throws {
        let own = CountingCache()
        let named = CountingCache()
        let stage = Self.stage(own)
        let maker = Maker()
        let callers = (0..<3).map { _ in Task { try await stage.value(forKey: "k", in: named, shared: false, make: maker.make(4)) } }
        try await SingleFlightTests.waitUntil { maker.runs == 3 }
        #expect(stage.startedCount == 0 && stage.runningCount == 0, "no single flight")
        maker.open()
        for caller in callers { #expect(try await caller.value == 4) }
        #expect(named.state.withLock { ($0.slowReads, $0.stores["k"]) } == (3, 3))
        #expect(own.state.withLock { $0.slowReads == 0 && $0.stores.isEmpty })
        // A value in the named cache answers an unshared caller too.
        #expect(try await stage.value(forKey: "k", in: named, shared: false, make: maker.make(8)) == 4)
        #expect(maker.runs == 3)
    }

    @Test("a value in the slower tier is answered without make and counted as a hit")
    func slowTierHit() async throws {
        let cache = CountingCache()
        cache.state.withLock { $0.slow["k"] = 9 }
        let hits = Hits()
        let stage = Self.stage(cache, hits: hits)
        let maker = Maker()
        #expect(try await stage.value(forKey: "k", make: maker.make(1)) == 9)
        #expect(maker.runs == 0 && hits.value == 1 && cache.state.withLock { $0.stores.isEmpty })
    }

    @Test("revalidating hands make the stored value; given back with store .none it is not written, with .metadata it is renewed, never stored whole")
    func revalidation() async throws {
        let cache = CountingCache()
        cache.state.withLock { $0.memory["k"] = 3 }
        let stage = Self.stage(cache)
        let maker = Maker()
        maker.open()
        #expect(try await stage.value(forKey: "k", revalidating: { _ in true }, make: maker.make(3, store: .none)) == 3)
        #expect(maker.given == [3] && cache.state.withLock { $0.stores.isEmpty && $0.renewals.isEmpty })
        // A 304 that renewed the stored value's metadata.
        #expect(try await stage.value(forKey: "k", revalidating: { _ in true }, make: maker.make(3, store: .metadata)) == 3)
        #expect(maker.given == [3, 3] && cache.state.withLock { $0.stores.isEmpty && $0.renewals["k"] == 1 })
        // Changed at the source: the new value replaces the stored one.
        #expect(try await stage.value(forKey: "k", revalidating: { _ in true }, make: maker.make(4)) == 4)
        #expect(maker.given == [3, 3, 3] && cache.state.withLock { ($0.memory["k"], $0.stores["k"], $0.renewals["k"]) } == (4, 1, 1))
    }

    @Test("revalidating is asked of each stored value, in memory and in the slower tier: only the values it picks go to make")
    func selectiveRevalidation() async throws {
        let cache = CountingCache()
        cache.state.withLock { s in
            s.memory["m-keep"] = 1
            s.memory["m-check"] = 2
            s.slow["s-keep"] = 3
            s.slow["s-check"] = 4
        }
        let stage = Self.stage(cache)
        let maker = Maker()
        maker.open()
        let evenOnes: @Sendable (Int) -> Bool = { $0 % 2 == 0 }
        for key in ["m-keep", "m-check", "s-keep", "s-check"] {
            _ = try await stage.value(forKey: key, revalidating: evenOnes, make: maker.make(10))
        }
        #expect(maker.given == [2, 4], "make saw only the stored values the check picked")
        #expect(cache.state.withLock { $0.slowReads } == 3, "a memory hit that needs no check reads nothing more")
    }

    @Test("a failure is not stored: the next caller runs make again")
    func failureNotStored() async throws {
        let cache = CountingCache()
        let stage = Self.stage(cache)
        let runs = Mutex(0)
        await #expect(throws: WaitError.lineFull) {
            try await stage.value(forKey: "k") { _ throws(WaitError) -> Made in
                runs.withLock { $0 += 1 }
                throw .lineFull
            }
        }
        #expect(try await stage.value(forKey: "k") { _ throws(WaitError) in
            runs.withLock { $0 += 1 }
            return Made(2)
        } == 2)
        #expect(runs.withLock { $0 } == 2 && cache.state.withLock { $0.stores["k"] } == 1)
    }

    @Test("a joiner's deadline ends its wait with waitFailure(.timedOut); the run finishes for the first caller")
    func joinerDeadline() async throws {
        let stage = Self.stage(nil)
        let maker = Maker()
        let first = Task { try await stage.value(forKey: "k", make: maker.make(8)) }
        try await SingleFlightTests.waitUntil { maker.runs == 1 }
        await #expect(throws: WaitError.timedOut) {
            try await stage.value(forKey: "k", deadline: .now + .milliseconds(50), make: maker.make(9))
        }
        maker.open()
        #expect(try await first.value == 8)
        #expect(maker.runs == 1)
    }

    @Test("a first caller that leaves cancels its make; the waiting caller runs make again and gets the value")
    func firstCallerLeaves() async throws {
        let cache = CountingCache()
        let stage = Self.stage(cache)
        let maker = Maker()
        let first = Task { try await stage.value(forKey: "k", make: maker.make(1)) }
        try await SingleFlightTests.waitUntil { maker.runs == 1 }
        let joiner = Task { try await stage.value(forKey: "k", make: maker.make(2)) }
        try await Task.sleep(for: .milliseconds(20))
        first.cancel()
        try await SingleFlightTests.waitUntil { maker.runs == 2 }
        maker.open()
        #expect(try await joiner.value == 2)
        await #expect(throws: WaitError.self) { try await first.value }
        #expect(cache.state.withLock { $0.stores["k"] } == 1)
    }

    @Test("a stage without a cache stores nothing and answers each caller after its key's run")
    func withoutCache() async throws {
        let stage = Self.stage(nil)
        let maker = Maker()
        maker.open()
        #expect(try await stage.value(forKey: "k", make: maker.make(1)) == 1)
        #expect(try await stage.value(forKey: "k", make: maker.make(2)) == 2)
        #expect(maker.runs == 2)
    }

    @Test("a flood of 2,000 distinct keys leaves no run behind")
    func flood() async throws {
        let cache = CountingCache()
        let stage = Self.stage(cache)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<2000 {
                group.addTask { try await stage.value(forKey: "k\(i % 500)") { _ throws(WaitError) in Made(i % 500) } }
            }
            for try await _ in group {}
        }
        #expect(stage.runningCount == 0)
        #expect(cache.state.withLock { $0.memory.count } == 500)
    }
}
