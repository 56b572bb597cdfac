import Synchronization

/// Runs one piece of work per key at a time: callers asking for a key whose work is
/// running wait for that work's result instead of starting their own.
///
/// The work runs in its own unstructured task, so a caller that gives up (its task is
/// cancelled: a timeout, a disconnect) stops waiting at once while the work goes on for
/// the others, and its result still reaches the cache.
final class Coalescer<Value: Sendable>: Sendable {
    private struct State {
        var waiters: [String: [UInt64: CheckedContinuation<Value?, Never>]] = [:]
        var nextID: UInt64 = 0
    }
    private let state = Mutex(State())
    private enum Role { case start, join, cancelled }

    /// The result of `work` for `key`, started now or joined if already running; `nil`
    /// when the calling task was cancelled before it arrived.
    func value(forKey key: String, _ work: @escaping @Sendable () async -> Value) async -> Value? {
        let id = state.withLock { s -> UInt64 in
            s.nextID += 1
            return s.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let role = state.withLock { s -> Role in
                    if Task.isCancelled { return .cancelled }
                    if s.waiters[key] != nil {
                        s.waiters[key]?[id] = continuation
                        return .join
                    }
                    s.waiters[key] = [id: continuation]
                    return .start
                }
                switch role {
                case .cancelled: continuation.resume(returning: nil)
                case .join: break
                case .start:
                    Task {
                        let value = await work()
                        let waiting = self.state.withLock { $0.waiters.removeValue(forKey: key) } ?? [:]
                        for waiter in waiting.values { waiter.resume(returning: value) }
                    }
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters[key]?.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }
}
