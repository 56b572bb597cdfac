import Synchronization

/// Bounds how many images are processed at once, with a bounded wait line: a request
/// past both gets ``ProxyError/overloaded`` (503 with `Retry-After`) at once instead of
/// piling up memory and latency.
///
/// Slots are handed to waiters in arrival order. Lock-protected counters only; the
/// waiting itself is a continuation, so no thread blocks.
final class TransformLimiter: Sendable {
    let maxRunning: Int
    let maxWaiting: Int

    private struct State {
        var running = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    init(maxRunning: Int, maxWaiting: Int) {
        self.maxRunning = max(1, maxRunning)
        self.maxWaiting = max(0, maxWaiting)
    }

    /// Runs `work` in a slot, waiting for one if needed.
    ///
    /// - Throws: ``ProxyError/overloaded`` when every slot is taken and the line is full.
    func run<T: Sendable>(_ work: () async -> T) async throws(ProxyError) -> T {
        try await acquire()
        let result = await work()
        release()
        return result
    }

    private func acquire() async throws(ProxyError) {
        enum Decision { case go, wait, refuse }
        let decision = state.withLock { s -> Decision in
            if s.running < maxRunning {
                s.running += 1
                return .go
            }
            return s.waiters.count < maxWaiting ? .wait : .refuse
        }
        switch decision {
        case .go: return
        case .refuse: throw .overloaded
        case .wait:
            await withCheckedContinuation { continuation in
                let startNow = state.withLock { s -> Bool in
                    // A slot may have been freed between the two locks.
                    if s.running < maxRunning {
                        s.running += 1
                        return true
                    }
                    s.waiters.append(continuation)
                    return false
                }
                if startNow { continuation.resume() }
            }
        }
    }

    /// Hands the slot to the first waiter, or frees it.
    private func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiters.isEmpty {
                s.running -= 1
                return nil
            }
            return s.waiters.removeFirst()
        }
        next?.resume()
    }
}
