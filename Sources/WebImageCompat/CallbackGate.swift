import Dispatch
import Synchronization

/// Delivers one load's callbacks on a queue, in order, and nothing after its last one:
/// the callback adapters' half of "a task plus delivery on the callback queue".
///
/// Each callback is queued while the gate's lock is held (a `DispatchQueue.async`, not
/// the callback itself), so on a serial queue a progress report or partial image queued
/// before the final result runs before it, and none queued after it runs at all.
final class CallbackGate: Sendable {
    private let isClosed = Mutex(false)
    /// The queue callbacks run on.
    let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Whether the last callback was queued.
    var isFinished: Bool { isClosed.withLock { $0 } }

    /// Queues `callback` unless the last one was queued already.
    func send(_ callback: @escaping @Sendable () -> Void) {
        isClosed.withLock { closed in if !closed { queue.async(execute: callback) } }
    }

    /// Queues the last callback; `false` (and `callback` dropped) when there already was one.
    @discardableResult
    func finish(_ callback: @escaping @Sendable () -> Void) -> Bool {
        isClosed.withLock { closed in
            guard !closed else { return false }
            closed = true
            queue.async(execute: callback)
            return true
        }
    }

    /// Runs the last callback on this thread, now; `false` when there already was one.
    func finishHere(_ callback: () -> Void) -> Bool {
        let first = isClosed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        if first { callback() }
        return first
    }
}
