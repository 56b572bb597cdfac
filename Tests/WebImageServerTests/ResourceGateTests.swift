import Foundation
import Synchronization
import Testing
@testable import WebImageServer

/// The admission gate behind transform slots and the memory budget, flooded directly.
@Suite("ResourceGate: slots and bytes", .timeLimit(.minutes(1)))
struct ResourceGateTests {
    @Test("a flood never holds more than the capacity; the line is bounded; everyone admitted finishes")
    func flood() async throws {
        let gate = ResourceGate(capacity: 10, maxWaiting: 30)
        let units = UnitMeter()
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<60 {
                group.addTask {
                    do throws(ProxyError) {
                        try await gate.run(units: 1 + i % 4) {
                            units.enter(1 + i % 4)
                            try? await Task.sleep(for: .milliseconds(5))
                            units.leave(1 + i % 4)
                        }
                        return true
                    } catch {
                        #expect(error == .overloaded)
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

    @Test("a request larger than the capacity runs alone, never never")
    func oversize() async throws {
        let gate = ResourceGate(capacity: 10, maxWaiting: 4)
        let ran = try await gate.run(units: 50) { gate.usedUnits }
        #expect(ran == 50)
        #expect(gate.usedUnits == 0)
    }

    /// How one admission of a unit ends: `nil` when admitted, else the refusal.
    static func outcome(_ gate: ResourceGate) async -> ProxyError? {
        do throws(ProxyError) {
            try await gate.acquire(1)
            gate.release(1)
            return nil
        } catch {
            return error
        }
    }

    @Test("a waiter that is cancelled leaves the line at once; one that waits too long gets overloaded")
    func cancelAndTimeout() async throws {
        let gate = ResourceGate(capacity: 1, maxWaiting: 4, maxWait: .milliseconds(200))
        try await gate.acquire(1)
        let waiter = Task { await Self.outcome(gate) }
        for _ in 0..<100 where gate.waitingCount == 0 { try await Task.sleep(for: .milliseconds(2)) }
        waiter.cancel()
        #expect(await waiter.value == .clientClosedRequest)
        #expect(gate.waitingCount == 0)
        let start = ContinuousClock.now
        #expect(await Self.outcome(gate) == .overloaded)
        #expect(ContinuousClock.now - start >= .milliseconds(150))
        gate.release(1)
        #expect(gate.usedUnits == 0)
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
