import Synchronization

/// Where a task's cancellation handler finds the work to stop, when that work may not
/// exist yet: the one "cancelled before the handle exists" primitive of the library.
///
/// A bridge from a callback API to `async` creates the slot, starts the work inside
/// `withTaskCancellationHandler`, and hands the work's cancel action to ``set(_:)``. If
/// the task was cancelled first, ``set(_:)`` runs the action at once; otherwise
/// ``cancel()`` runs it later. Either way it runs at most once, outside the lock.
package final class CancellationSlot: Sendable {
    private enum State {
        case empty
        case armed(@Sendable () -> Void)
        case cancelled
    }
    private let state = Mutex(State.empty)

    package init() {}

    /// Registers the action that stops the work; runs it now if the slot was cancelled.
    package func set(_ cancel: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if case .cancelled = s { return true }
            s = .armed(cancel)
            return false
        }
        if runNow { cancel() }
    }

    /// Runs the registered action (once), or remembers the cancellation for ``set(_:)``.
    package func cancel() {
        let action = state.withLock { s -> (@Sendable () -> Void)? in
            defer { s = .cancelled }
            if case .armed(let action) = s { return action }
            return nil
        }
        action?()
    }
}
