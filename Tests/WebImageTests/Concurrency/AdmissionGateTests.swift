import Foundation
import Synchronization
import Testing
@testable import WebImage

/// The admission gate behind the proxy's transform slots and memory budget, flooded
/// directly. (Was `ResourceGateTests` in WebImageServerTests; the gate moved to the
/// library's concurrency primitives, and its errors are ``WaitError``s, which the proxy
/// maps to 503 / 499.)
@Suite("AdmissionGate: slots and bytes", .timeLimit(.minutes(1)))
struct AdmissionGateTests {
    @Test("a flood never holds more than the capacity; the line is bounded; everyone admitted finishes")
    func flood() async throws {
        let gate = AdmissionGate(capacity: 10, maxWaiting: 30)
        let units = UnitMeter()
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<60 {
                group.addTask {
                    do throws(WaitError) {
                        try await gate.run(units: 1 + i % 4) {
                            units.enter(1 + i % 4)
                            try? await Task.sleep(for: .milliseconds(5))
                            units.leave(1 + i % 4)
                        }
                        return true
                    } catch {
                        #expect(error == .lineFull)
                        return false
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(units.peak <= 10)
        #expect(results.contains(true))
        #expect(gate.usedUnits == 0 && gate.waitingCount == 0)
    }

    @Test("the line holds at most maxWaiting callers; one more is refused at once")
    func lineBound() async throws {
        let gate = AdmissionGate(capacity: 1, maxWaiting: 3)
        try await gate.acquire(1)
        let waiters = (0..<3).map { _ in Task { await Self.outcome(gate) } }
        for _ in 0..<500 where gate.waitingCount < 3 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(gate.waitingCount == 3)
        let start = ContinuousClock.now
        #expect(await Self.outcome(gate) == .lineFull)
        #expect(ContinuousClock.now - start < .milliseconds(500))
        gate.release(1)
        for waiter in waiters { #expect(await waiter.value == nil) }
        #expect(gate.usedUnits == 0 && gate.admittedAfterWaiting == 3)
    }

    @Test("a request larger than the capacity runs alone, never never")
    func oversize() async throws {
        let gate = AdmissionGate(capacity: 10, maxWaiting: 4)
        let ran = try await gate.run(units: 50) { gate.usedUnits }
        #expect(ran == 50)
        #expect(gate.usedUnits == 0)
    }

    @Test("waiters are admitted in arrival order: a large head is not overtaken by small ones")
    func order() async throws {
        let gate = AdmissionGate(capacity: 10, maxWaiting: 8)
        try await gate.acquire(6)
        let big = Task { () -> ContinuousClock.Instant? in
            do throws(WaitError) { try await gate.acquire(10) } catch { return nil }
            defer { gate.release(10) }
            return .now
        }
        for _ in 0..<500 where gate.waitingCount < 1 { try await Task.sleep(for: .milliseconds(2)) }
        let small = Task { () -> ContinuousClock.Instant? in
            do throws(WaitError) { try await gate.acquire(1) } catch { return nil }
            defer { gate.release(1) }
            return .now
        }
        for _ in 0..<500 where gate.waitingCount < 2 { try await Task.sleep(for: .milliseconds(2)) }
        // 4 units are free: the small one would fit, but it waits behind the big one.
        #expect(gate.waitingCount == 2)
        gate.release(6)
        let bigAt = try #require(await big.value)
        let smallAt = try #require(await small.value)
        #expect(bigAt <= smallAt)
        #expect(gate.usedUnits == 0)
    }

    /// How one admission of a unit ends: `nil` when admitted, else the refusal.
    static func outcome(_ gate: AdmissionGate, deadline: ContinuousClock.Instant? = nil) async -> WaitError? {
        do throws(WaitError) {
            try await gate.acquire(1, deadline: deadline)
            gate.release(1)
            return nil
        } catch {
            return error
        }
    }

    @Test("a waiter that is cancelled leaves the line at once; one that waits too long is refused")
    func cancelAndTimeout() async throws {
        let gate = AdmissionGate(capacity: 1, maxWaiting: 4, maxWait: .milliseconds(200))
        try await gate.acquire(1)
        let waiter = Task { await Self.outcome(gate) }
        for _ in 0..<100 where gate.waitingCount == 0 { try await Task.sleep(for: .milliseconds(2)) }
        waiter.cancel()
        #expect(await waiter.value == .cancelled)
        #expect(gate.waitingCount == 0)
        let start = ContinuousClock.now
        #expect(await Self.outcome(gate) == .timedOut)
        #expect(ContinuousClock.now - start >= .milliseconds(150))
        #expect(gate.waitingCount == 0)
        gate.release(1)
        #expect(gate.usedUnits == 0)
    }

    @Test("a caller's own deadline ends its wait before maxWait")
    func callerDeadline() async throws {
        let gate = AdmissionGate(capacity: 1, maxWaiting: 4)
        try await gate.acquire(1)
        let start = ContinuousClock.now
        #expect(await Self.outcome(gate, deadline: .now + .milliseconds(100)) == .timedOut)
        #expect(ContinuousClock.now - start < .seconds(30))
        gate.release(1)
        #expect(gate.usedUnits == 0 && gate.waitingCount == 0)
    }

    @Test("units are never lost when admissions race timeouts and cancellations")
    func racesKeepTheCount() async throws {
        let gate = AdmissionGate(capacity: 2, maxWaiting: 1000, maxWait: .milliseconds(3))
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<400 {
                group.addTask {
                    let task = Task { () -> Void in
                        do throws(WaitError) {
                            try await gate.run(units: 1) { await Task.yield() }
                        } catch {}
                    }
                    if i % 3 == 0 { task.cancel() }
                    await task.value
                }
            }
        }
        #expect(gate.usedUnits == 0 && gate.waitingCount == 0)
    }
}

/// Units held now and the most ever held at once.
final class UnitMeter: Sendable {
    private let state = Mutex((current: 0, peak: 0))

    func enter(_ units: Int) {
        state.withLock { s in
            s.current += units
            s.peak = max(s.peak, s.current)
        }
    }

    func leave(_ units: Int) { state.withLock { $0.current -= units } }

    var peak: Int { state.withLock { $0.peak } }
}
