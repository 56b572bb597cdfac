import Synchronization

/// The first of several answers to one waiting task (a race): the work's result, a
/// deadline, the task's cancellation, or anything else that holds the box (a load token's
/// cancel). The first ``resume(_:)`` wins and later ones are dropped, so a loser never
/// resumes the task twice and the waiter never waits for the loser.
///
/// Waiting starts no task: the deadline is a ``DeadlineTimer``, cancellation a handler.
/// The sources run wherever they run (a pool thread, an event loop, another task); the
/// box is a `Mutex`, and the continuation is resumed after it is released.
package final class FirstOf<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, Never>?
        /// An answer that came before the continuation was installed.
        var early: Value?
        var isDone = false
        var timer: DeadlineTimer?
    }
    private let state = Mutex(State())

    private init() {}

    /// Waits for the first answer: what a source passes to ``resume(_:)``, else
    /// `cancelled()` when the calling task is cancelled. `start` runs as in
    /// ``value(deadline:timedOut:cancelled:_:)``.
    package static func value(
        cancelled: @escaping @Sendable () -> Value, _ start: (FirstOf<Value>) -> Void
    ) async -> Value {
        await value(deadline: nil, timedOut: cancelled, cancelled: cancelled, start)
    }

    /// Waits for the first answer: what a source passes to ``resume(_:)``, else
    /// `timedOut()` at `deadline`, else `cancelled()` when the calling task is cancelled.
    /// `start` runs once, synchronously, before the wait (not at all when the task is
    /// already cancelled); it hands the box to the sources.
    package static func value(
        deadline: ContinuousClock.Instant?,
        timedOut: @escaping @Sendable () -> Value,
        cancelled: @escaping @Sendable () -> Value,
        _ start: (FirstOf<Value>) -> Void
    ) async -> Value {
        let box = FirstOf<Value>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                guard box.install(continuation) else { return }
                if Task.isCancelled {
                    box.resume(cancelled())
                    return
                }
                if let deadline { box.arm(DeadlineTimer(at: deadline) { box.resume(timedOut()) }) }
                start(box)
            }
        } onCancel: {
            box.resume(cancelled())
        }
    }

    /// Answers the waiter unless another answer came first; `true` when this one won.
    @discardableResult
    package func resume(_ value: Value) -> Bool {
        let (won, continuation, timer) = state.withLock { s -> (Bool, CheckedContinuation<Value, Never>?, DeadlineTimer?) in
            guard !s.isDone else { return (false, nil, nil) }
            s.isDone = true
            if s.continuation == nil { s.early = value }
            defer { s.continuation = nil; s.timer = nil }
            return (true, s.continuation, s.timer)
        }
        timer?.cancel()
        continuation?.resume(returning: value)
        return won
    }

    /// Whether the wait has been answered.
    package var isDone: Bool { state.withLock { $0.isDone } }

    /// Installs the continuation; `false` (after resuming it) when an answer came first.
    private func install(_ continuation: CheckedContinuation<Value, Never>) -> Bool {
        let early = state.withLock { s -> Value? in
            if s.isDone { return s.early.take() }
            s.continuation = continuation
            return nil
        }
        guard let early else { return true }
        continuation.resume(returning: early)
        return false
    }

    private func arm(_ timer: DeadlineTimer) {
        let done = state.withLock { s -> Bool in
            if !s.isDone { s.timer = timer }
            return s.isDone
        }
        if done { timer.cancel() }
    }
}
