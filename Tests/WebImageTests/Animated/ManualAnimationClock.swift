import Synchronization
@testable import WebImageCodecs

/// A clock the test moves by hand: sleepers wake only when ``advance(to:)`` passes their
/// deadline, so a player's timing is checked without real waiting.
final class ManualAnimationClock: AnimationClock {
    private struct Sleeper {
        var id: Int
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var now: Duration = .zero
        var sleepers: [Sleeper] = []
        var nextID = 0
    }
    private let state = Mutex(State())

    func now() -> Duration { state.withLock { $0.now } }

    func sleep(until deadline: Duration) async throws {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let wakeNow = state.withLock { s -> Bool in
                    if deadline <= s.now || Task.isCancelled { return true }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if wakeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { s -> Sleeper? in
                guard let i = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleepers.remove(at: i)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// The earliest deadline someone sleeps until, if anyone sleeps.
    var nextDeadline: Duration? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    /// Moves time to `time` (never backwards) and wakes the sleepers it passes.
    func advance(to time: Duration) {
        let woken = state.withLock { s -> [Sleeper] in
            s.now = max(s.now, time)
            let now = s.now
            let due = s.sleepers.filter { $0.deadline <= now }
            s.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    func advance(by duration: Duration) { advance(to: now() + duration) }

    /// Waits (really, briefly) until someone sleeps on this clock; `false` after ~5 s.
    func waitForSleeper() async -> Bool {
        for _ in 0..<5000 {
            if nextDeadline != nil { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return false
    }
}
