import Synchronization
import Testing
@testable import webimage

/// Bulk mode's per-host politeness gate, driven directly: the limit per host, the rate,
/// the pause after 429/503, giving up on a host, arrival order, and forgetting idle hosts.
/// Timing is asserted only as lower bounds (a loaded machine is slow, never fast).
/// A value shared by the test's tasks (a `Mutex` is not copyable, so tasks cannot capture one).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
}

@Suite("HostGate: politeness per host", .timeLimit(.minutes(1)))
struct HostGateTests {
    /// Waits until `count` callers wait for `host` (they parked, in the order they came).
    static func waitUntil(_ gate: HostGate, _ host: String, waiting count: Int) async throws {
        while gate.waitingCount(host) < count { try await Task.sleep(for: .milliseconds(1)) }
    }

    struct NoAnswer: Error, CustomStringConvertible {
        var host: String
        var description: String { "the gate did not answer an acquire of \(host)" }
    }

    /// `gate.acquire(host)`, run in a task of its own: a waiter ignores cancellation, so a
    /// gate that never answers fails the test after `limit` instead of hanging the run.
    static func acquire(_ gate: HostGate, _ host: String, within limit: Duration = .seconds(20)) async throws -> HostGate.Admission {
        try await timedAcquire(gate, host, within: limit).admission
    }

    /// ``acquire(_:_:within:)``, with the instant the gate answered (not when the answer
    /// was noticed).
    static func timedAcquire(
        _ gate: HostGate, _ host: String, within limit: Duration = .seconds(20)
    ) async throws -> (admission: HostGate.Admission, at: ContinuousClock.Instant) {
        let answer = Locked<(admission: HostGate.Admission, at: ContinuousClock.Instant)?>(nil)
        Task {
            let admission = await gate.acquire(host)
            let now = ContinuousClock.now
            answer.withLock { $0 = (admission, now) }
        }
        let deadline = ContinuousClock.now + limit
        while true {
            if let answered = answer.withLock({ $0 }) { return answered }
            guard ContinuousClock.now < deadline else { throw NoAnswer(host: host) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Waits until `condition` holds.
    static func waitUntil(_ condition: () -> Bool) async throws {
        while !condition() { try await Task.sleep(for: .milliseconds(1)) }
    }

    @Test("At most `limit` requests to one host at once; the others wait; another host is not held up")
    func limitPerHost() async throws {
        let gate = HostGate(limit: 2, ratePerSecond: nil)
        // Given a host with both of its slots taken
        #expect(try await Self.acquire(gate, "a") == .go)
        #expect(try await Self.acquire(gate, "a") == .go)
        // When five more callers come for it
        let admitted = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    let admission = try await Self.acquire(gate, "a")
                    #expect(admission == .go)
                    admitted.withLock { $0 += 1 }
                }
            }
            try await Self.waitUntil(gate, "a", waiting: 5)
            // Then none goes, and another host goes at once
            #expect(admitted.withLock { $0 } == 0)
            let admission = try await Self.acquire(gate, "b")
            #expect(admission == .go)
            #expect(gate.waitingCount("b") == 0)
            // And each release lets exactly one more go
            for expected in 1...5 {
                gate.release("a", status: 200, retryAfter: nil, message: nil)
                try await Self.waitUntil { admitted.withLock { $0 } == expected }
                try await Task.sleep(for: .milliseconds(20))
                #expect(admitted.withLock { $0 } == expected)
                #expect(gate.waitingCount("a") == 5 - expected)
            }
            try await group.waitForAll()
        }
        gate.release("a", status: 200, retryAfter: nil, message: nil)
        gate.release("a", status: 200, retryAfter: nil, message: nil)
        gate.release("b", status: 200, retryAfter: nil, message: nil)
        #expect(gate.hostCount == 0)
    }

    @Test("Concurrent callers holding a slot for a while: never more than `limit` at once per host")
    func limitUnderConcurrency() async throws {
        let gate = HostGate(limit: 3, ratePerSecond: nil)
        let running = Locked<[String: Int]>([:])
        let peak = Locked<[String: Int]>([:])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<60 {
                let host = i % 2 == 0 ? "a" : "b"
                group.addTask {
                    let admission = try await Self.acquire(gate, host)
                    #expect(admission == .go)
                    running.withLock { running in
                        running[host, default: 0] += 1
                        let now = running[host, default: 0]
                        peak.withLock { $0[host] = max($0[host] ?? 0, now) }
                    }
                    try? await Task.sleep(for: .milliseconds(5))
                    running.withLock { $0[host, default: 0] -= 1 }
                    gate.release(host, status: 200, retryAfter: nil, message: nil)
                }
            }
            try await group.waitForAll()
        }
        let peaks = peak.withLock { $0 }
        #expect(peaks["a"] ?? 0 <= 3 && peaks["a"] ?? 0 >= 1, "\(peaks)")
        #expect(peaks["b"] ?? 0 <= 3 && peaks["b"] ?? 0 >= 1, "\(peaks)")
        #expect(gate.hostCount == 0)
    }

    @Test("Callers waiting for a host go in arrival order")
    func arrivalOrder() async throws {
        let gate = HostGate(limit: 1, ratePerSecond: nil)
        #expect(try await Self.acquire(gate, "a") == .go)
        let order = Locked<[Int]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<6 {
                group.addTask {
                    let admission = try await Self.acquire(gate, "a")
                    #expect(admission == .go)
                    order.withLock { $0.append(i) }
                    gate.release("a", status: 200, retryAfter: nil, message: nil)
                }
                // Parks them one by one, so arrival order is known.
                try await Self.waitUntil(gate, "a", waiting: i + 1)
            }
            gate.release("a", status: 200, retryAfter: nil, message: nil)
            try await group.waitForAll()
        }
        #expect(order.withLock { $0 } == Array(0..<6))
    }

    @Test("ratePerSecond 20: five starts on an idle host are at least 50 ms apart, 200 ms in all")
    func rate() async throws {
        let gate = HostGate(limit: 10, ratePerSecond: 20)
        let clock = ContinuousClock()
        let begin = clock.now
        let starts = Locked<[ContinuousClock.Instant]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    let (admission, at) = try await Self.timedAcquire(gate, "a")
                    #expect(admission == .go)
                    starts.withLock { $0.append(at) }
                    gate.release("a", status: 200, retryAfter: nil, message: nil)
                }
            }
            try await group.waitForAll()
        }
        let elapsed = begin.duration(to: clock.now)
        #expect(elapsed >= .milliseconds(200), "\(elapsed)")
        // Each start is stamped after its waiter resumed, so a stamp can be late by the
        // resume's scheduling delay, and the gap after a late one looks short (a loaded run
        // read 45 ms). What no delay can fake: the k-th start in time order came at least
        // k × 50 ms after the gate's first admission, which was after `begin`.
        let sorted = starts.withLock { $0 }.sorted()
        #expect(sorted.count == 5)
        for (k, at) in sorted.enumerated() {
            #expect(begin.duration(to: at) >= .milliseconds(50 * k), "start \(k): \(begin.duration(to: at))")
        }
    }

    @Test("A 429 with Retry-After 0.3 pauses the host: the next start and those waiting wait it out; others go")
    func retryAfterPausesHost() async throws {
        let gate = HostGate(limit: 3, ratePerSecond: nil)
        let clock = ContinuousClock()
        #expect(try await Self.acquire(gate, "a") == .go)
        let paused = clock.now
        gate.release("a", status: 429, retryAfter: 0.3, message: "HTTP Error 429: Too Many Requests")
        // Another host is not paused.
        #expect(try await Self.acquire(gate, "b") == .go)
        gate.release("b", status: 200, retryAfter: nil, message: nil)
        // Nothing runs on the host, so only the host's timer can let these go.
        let waited = Locked<[Duration]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    let admission = try await Self.acquire(gate, "a")
                    #expect(admission == .go)
                    waited.withLock { $0.append(paused.duration(to: clock.now)) }
                }
            }
            try await group.waitForAll()
        }
        for duration in waited.withLock({ $0 }) { #expect(duration >= .milliseconds(250), "\(duration)") }
        for _ in 0..<3 { gate.release("a", status: 200, retryAfter: nil, message: nil) }
        #expect(gate.hostCount == 0)
    }

    @Test("A 503 without Retry-After pauses the host for the first backoff, one second")
    func backoffWithoutRetryAfter() async throws {
        let gate = HostGate(limit: 1, ratePerSecond: nil)
        let clock = ContinuousClock()
        #expect(try await Self.acquire(gate, "a") == .go)
        let paused = clock.now
        gate.release("a", status: 503, retryAfter: nil, message: nil)
        #expect(try await Self.acquire(gate, "a") == .go)
        let waited = paused.duration(to: clock.now)
        #expect(waited >= .milliseconds(950), "\(waited)")
        gate.release("a", status: 200, retryAfter: nil, message: nil)
    }

    @Test("Eight 429/503 in a row give the host up: waiters and later callers are refused with its last answer")
    func givesUpAfterEightRefusals() async throws {
        let gate = HostGate(limit: 2, ratePerSecond: nil)
        // One request held open throughout, so the host (and its count) is not forgotten.
        #expect(try await Self.acquire(gate, "a") == .go)
        // Seven refusals (no pause: Retry-After 0), a network failure (which is no
        // answer, so it neither counts nor resets), then an eighth refusal held open.
        for i in 0..<7 {
            let admission = try await Self.acquire(gate, "a")
            #expect(admission == .go)
            gate.release("a", status: i % 2 == 0 ? 429 : 503, retryAfter: 0, message: "HTTP Error 429: Too Many Requests")
        }
        #expect(try await Self.acquire(gate, "a") == .go)
        gate.release("a", status: nil, retryAfter: nil, message: "timed out")
        #expect(try await Self.acquire(gate, "a") == .go)
        let message = "HTTP Error 503: Service Unavailable"
        let answers = Locked<[HostGate.Admission]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    let admission = try await Self.acquire(gate, "a")
                    answers.withLock { $0.append(admission) }
                    // Were one let go (a broken gate), it must not hold its slot forever.
                    if admission == .go { gate.release("a", status: 200, retryAfter: nil, message: nil) }
                }
            }
            try await Self.waitUntil(gate, "a", waiting: 3)
            gate.release("a", status: 503, retryAfter: 0, message: message)
            try await group.waitForAll()
        }
        #expect(answers.withLock { $0 } == Array(repeating: .refused(message), count: 3))
        #expect(try await Self.acquire(gate, "a") == .refused(message))
        // The held request's success does not take the host back.
        gate.release("a", status: 200, retryAfter: nil, message: nil)
        #expect(try await Self.acquire(gate, "a") == .refused(message))
        // Another host is not given up on.
        #expect(try await Self.acquire(gate, "b") == .go)
    }

    @Test("An answer other than 429/503 resets the count: seven refusals, a 404, seven more, and the host still goes")
    func successResetsRefusals() async throws {
        let gate = HostGate(limit: 2, ratePerSecond: nil)
        // One request held open throughout, so the host (and its count) is not forgotten.
        #expect(try await Self.acquire(gate, "a") == .go)
        for status in Array(repeating: 429, count: 7) + [404] + Array(repeating: 503, count: 7) {
            let admission = try await Self.acquire(gate, "a")
            #expect(admission == .go)
            gate.release("a", status: status, retryAfter: 0, message: "HTTP Error \(status)")
        }
        #expect(try await Self.acquire(gate, "a") == .go)
        gate.release("a", status: 200, retryAfter: nil, message: nil)
        gate.release("a", status: 200, retryAfter: nil, message: nil)
    }

    @Test("A flood: 2000 acquire/release pairs over 50 hosts all complete, within the limit, and idle hosts are forgotten")
    func flood() async throws {
        let gate = HostGate(limit: 2, ratePerSecond: nil)
        let running = Locked<[String: Int]>([:])
        let overLimit = Locked(0)
        let done = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<2000 {
                let host = "host\(i % 50).example"
                group.addTask {
                    guard try await Self.acquire(gate, host) == .go else { return }
                    running.withLock { running in
                        running[host, default: 0] += 1
                        if running[host, default: 0] > 2 { overLimit.withLock { $0 += 1 } }
                    }
                    await Task.yield()
                    running.withLock { $0[host, default: 0] -= 1 }
                    gate.release(host, status: 200, retryAfter: nil, message: nil)
                    done.withLock { $0 += 1 }
                }
            }
            try await group.waitForAll()
        }
        #expect(done.withLock { $0 } == 2000)
        #expect(overLimit.withLock { $0 } == 0)
        #expect(gate.hostCount == 0)
    }
}
