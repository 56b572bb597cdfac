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
}
