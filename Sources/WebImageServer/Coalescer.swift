import Synchronization

/// Runs one piece of work per key at a time: callers asking for a key whose work is
/// running wait for that work's result instead of starting their own.
///
/// The work runs in its own task, so one caller that gives up (its client went away,
/// its deadline passed) stops waiting at once while the work goes on for the others.
/// When the last waiter gives up, the work is cancelled: a render nobody waits for frees
/// its transform slot and its memory instead of finishing for an empty room.
final class Coalescer<Value: Sendable>: Sendable {
    private struct Entry {
        /// The id of the caller that started the work: tells this run from a later one.
        var generation: UInt64
        var waiters: [UInt64: CheckedContinuation<Value?, Never>] = [:]
        var task: Task<Void, Never>?
    }
    private struct State {
        var entries: [String: Entry] = [:]
        var nextID: UInt64 = 0
    }
    private let state = Mutex(State())
    private enum Role { case start, join, cancelled }

    /// Keys with work running (tests).
    var runningCount: Int { state.withLock { $0.entries.count } }

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
                    if s.entries[key] != nil {
                        s.entries[key]?.waiters[id] = continuation
                        return .join
                    }
                    s.entries[key] = Entry(generation: id, waiters: [id: continuation])
                    return .start
                }
                switch role {
                case .cancelled: continuation.resume(returning: nil)
                case .join: break
                case .start:
                    let task = Task {
                        let value = await work()
                        let waiting = self.state.withLock { s -> [UInt64: CheckedContinuation<Value?, Never>] in
                            guard s.entries[key]?.generation == id else { return [:] }
                            return s.entries.removeValue(forKey: key)?.waiters ?? [:]
                        }
                        for waiter in waiting.values { waiter.resume(returning: value) }
                    }
                    let kept = state.withLock { s -> Bool in
                        guard s.entries[key]?.generation == id else { return false }
                        s.entries[key]?.task = task
                        return true
                    }
                    // Every waiter left before the task was recorded.
                    if !kept { task.cancel() }
                }
            }
        } onCancel: {
            let (waiter, orphaned) = state.withLock { s -> (CheckedContinuation<Value?, Never>?, Task<Void, Never>?) in
                let waiter = s.entries[key]?.waiters.removeValue(forKey: id)
                guard waiter != nil, s.entries[key]?.waiters.isEmpty == true else { return (waiter, nil) }
                // Nobody waits any more: the work stops; a later caller starts anew.
                return (waiter, s.entries.removeValue(forKey: key)?.task)
            }
            waiter?.resume(returning: nil)
            orphaned?.cancel()
        }
    }
}
