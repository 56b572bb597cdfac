import Foundation
import Synchronization
import Testing
@testable import WebImage

/// The single-flight behind the proxy's renders, `/info` answers and source fetches, and
/// the host-name cache's lookups.
@Suite("SingleFlight: one run per key", .timeLimit(.minutes(1)))
struct SingleFlightTests {
    /// Work that waits until the test opens it, counting its runs and cancellations.
    final class Gate: Sendable {
        private let state = Mutex((open: false, runs: 0, cancels: 0))
        var runs: Int { state.withLock { $0.runs } }
        var cancels: Int { state.withLock { $0.cancels } }
        func open() { state.withLock { $0.open = true } }

        func work(_ value: Int) -> @Sendable () async -> Int {
            { [self] in
                state.withLock { $0.runs += 1 }
                while !state.withLock({ $0.open }) {
                    do { try await Task.sleep(for: .milliseconds(2)) } catch {
                        state.withLock { $0.cancels += 1 }
                        return -1
                    }
                }
                return value
            }
        }
    }

    static func waitUntil(_ condition: @Sendable () -> Bool) async throws {
        for _ in 0..<1000 where !condition() { try await Task.sleep(for: .milliseconds(2)) }
        #expect(condition())
    }

    @Test("callers of one key share one run; other keys run on their own")
    func joins() async throws {
        let flight = SingleFlight<String, Int>()
        let gate = Gate()
        let callers = (0..<20).map { i in
            Task { try await flight.value(forKey: i < 15 ? "a" : "b", gate.work(i < 15 ? 1 : 2)) }
        }
        try await Self.waitUntil { gate.runs == 2 }
        gate.open()
        var values: [Int] = []
        for caller in callers { values.append(try await caller.value) }
        #expect(values == Array(repeating: 1, count: 15) + Array(repeating: 2, count: 5))
        #expect(gate.runs == 2 && flight.startedCount == 2 && flight.runningCount == 0)
    }

    @Test("a deadline ends one caller's wait with timedOut; the work finishes for a caller without one")
    func deadline() async throws {
        let flight = SingleFlight<String, Int>()
        let gate = Gate()
        let patient = Task { try await flight.value(forKey: "k", gate.work(3)) }
        try await Self.waitUntil { gate.runs == 1 }
        let start = ContinuousClock.now
        await #expect(throws: WaitError.timedOut) {
            try await flight.value(forKey: "k", deadline: .now + .milliseconds(100), gate.work(4))
        }
        #expect(ContinuousClock.now - start >= .milliseconds(90))
        #expect(gate.cancels == 0)
        gate.open()
        #expect(try await patient.value == 3)
    }

    @Test("a caller already cancelled starts nothing")
    func alreadyCancelled() async throws {
        let flight = SingleFlight<String, Int>()
        let gate = Gate()
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await flight.value(forKey: "k", gate.work(1))
        }
        await #expect(throws: WaitError.cancelled) { try await caller.value }
        #expect(flight.startedCount == 0 && flight.runningCount == 0)
    }

    @TaskLocal static var caller = 0

    @Test("the work runs on the first caller's task, no task is started, joiners share it")
    func runsHere() async throws {
        let flight = SingleFlight<String, Int>()
        let gate = Gate()
        let tasks = Mutex<(caller: Int?, work: Int?)>((nil, nil))
        let first = Task {
            tasks.withLock { $0.caller = withUnsafeCurrentTask { $0?.hashValue } }
            return try await Self.$caller.withValue(1) {
                try await flight.value(forKey: "k") {
                    tasks.withLock { $0.work = withUnsafeCurrentTask { $0?.hashValue } }
                    return await gate.work(Self.caller)()
                }
            }
        }
        try await Self.waitUntil { gate.runs == 1 }
        let joiners = (2..<6).map { i in
            Task { try await Self.$caller.withValue(i) { try await flight.value(forKey: "k") { await gate.work(Self.caller)() } } }
        }
        try await Task.sleep(for: .milliseconds(20))
        gate.open()
        #expect(try await first.value == 1)
        for joiner in joiners { #expect(try await joiner.value == 1) }
        #expect(gate.runs == 1 && flight.runningCount == 0)
        // The same task, not a child or a new one (a task-local would not tell: tasks inherit them).
        let seen = tasks.withLock { $0 }
        #expect(seen.caller != nil && seen.work == seen.caller)
    }

    @Test("when the first caller leaves, a waiter takes over and still gets an answer")
    func takeOver() async throws {
        let flight = SingleFlight<String, Int>()
        let gate = Gate()
        let first = Task { try await Self.$caller.withValue(1) { try await flight.value(forKey: "k") { await gate.work(Self.caller)() } } }
        try await Self.waitUntil { gate.runs == 1 }
        let second = Task { try await Self.$caller.withValue(2) { try await flight.value(forKey: "k") { await gate.work(Self.caller)() } } }
        // The second caller has joined before the third starts: tasks need not start in order.
        try await Self.waitUntil { flight.waitingCount(forKey: "k") == 1 }
        let third = Task { try await Self.$caller.withValue(3) { try await flight.value(forKey: "k") { await gate.work(Self.caller)() } } }
        try await Self.waitUntil { flight.waitingCount(forKey: "k") == 2 }
        first.cancel()
        await #expect(throws: WaitError.cancelled) { try await first.value }
        // The first caller's work stopped with it; the longest-waiting joiner runs it again.
        try await Self.waitUntil { gate.runs == 2 && gate.cancels == 1 }
        gate.open()
        #expect(try await second.value == 2)
        #expect(try await third.value == 2)
        #expect(flight.startedCount == 2 && flight.runningCount == 0)
    }

    @Test("a joiner that leaves stops waiting at once; the run goes on")
    func joinerLeaves() async throws {
        let flight = SingleFlight<String, Int>()
        let gate = Gate()
        let first = Task { try await flight.value(forKey: "k", gate.work(1)) }
        try await Self.waitUntil { gate.runs == 1 }
        await #expect(throws: WaitError.timedOut) {
            try await flight.value(forKey: "k", deadline: .now + .milliseconds(50), gate.work(2))
        }
        #expect(gate.cancels == 0)
        gate.open()
        #expect(try await first.value == 1)
        #expect(gate.runs == 1)
    }

    @Test("a first caller leaving alone frees the key for the next caller")
    func leaderAlone() async throws {
        let flight = SingleFlight<String, Int>()
        let gate = Gate()
        let first = Task { try await flight.value(forKey: "k", gate.work(1)) }
        try await Self.waitUntil { gate.runs == 1 }
        first.cancel()
        await #expect(throws: WaitError.cancelled) { try await first.value }
        #expect(flight.runningCount == 0)
        gate.open()
        #expect(try await flight.value(forKey: "k", gate.work(2)) == 2)
    }

    @Test("a flood of joins, takeovers and cancellations leaves nothing behind and everyone left answered")
    func floodHere() async throws {
        let flight = SingleFlight<Int, Int>()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<500 {
                group.addTask {
                    let task = Task { try await flight.value(forKey: i % 7) { await Task.yield(); return i % 7 } }
                    if i % 4 == 0 { task.cancel() }
                    if let value = try? await task.value { #expect(value == i % 7) }
                }
            }
        }
        #expect(flight.runningCount == 0)
    }
}
