import Synchronization

/// Counts work in flight (a cache's stores between the call and the disk write) so
/// `flush()` can wait until none is left.
final class PendingWork: Sendable {
    private struct State {
        var count = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func begin() {
        state.withLock { $0.count += 1 }
    }

    func end() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.count -= 1
            guard s.count == 0 else { return [] }
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the count is zero (at once when it is).
    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> Bool in
                if s.count == 0 { return true }
                s.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
