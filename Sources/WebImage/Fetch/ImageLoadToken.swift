import Foundation
import Synchronization

/// One caller's handle on a load: cancel it and only this caller stops; change its
/// priority and the loader's queue reorders.
///
/// The callback form (``WebImageCompat/ImageLoaderCallbacks/requestImage(with:options:context:progress:completed:)``)
/// returns one per call, even when several callers share one transfer. The `async` form
/// takes one in its ``ImageLoadObserver`` when the caller wants to steer the load from
/// outside its task. Cancelling delivers ``WebImageCodecs/WebImageError/Code/cancelled`` to this caller at
/// once (unless it already completed) and stops the transfer when no caller is left.
/// Thread-safe; cancelling twice does nothing more.
///
/// A loader registers what a cancel and a priority change do with ``onCancel(_:)`` and
/// ``onPriorityChange(_:)``; both run outside the token's lock, on the changing thread.
public final class ImageLoadToken: Sendable {
    /// The URL this token loads.
    public let url: URL?
    private struct State {
        var cancelActions: [@Sendable () -> Void] = []
        var priorityAction: (@Sendable (ImageLoadPriority) -> Void)?
        var priority: ImageLoadPriority
        var isCancelled = false
    }
    private let state: Mutex<State>

    /// Creates a token whose first ``cancel()`` runs `cancel` and whose ``priority``
    /// changes run `setPriority`.
    public init(
        url: URL?, priority: ImageLoadPriority = .normal, cancel: (@Sendable () -> Void)? = nil,
        setPriority: (@Sendable (ImageLoadPriority) -> Void)? = nil
    ) {
        self.url = url
        state = Mutex(State(cancelActions: cancel.map { [$0] } ?? [], priorityAction: setPriority, priority: priority))
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// This caller's priority. Setting it while the transfer is queued moves the
    /// transfer in the loader's queue (a shared transfer runs at its callers' highest
    /// priority); loaders without a queue ignore it.
    public var priority: ImageLoadPriority {
        get { state.withLock { $0.priority } }
        set {
            let action = state.withLock { s -> (@Sendable (ImageLoadPriority) -> Void)? in
                guard s.priority != newValue, !s.isCancelled else { return nil }
                s.priority = newValue
                return s.priorityAction
            }
            action?(newValue)
        }
    }

    /// Cancels this caller's load. Safe from any thread, any number of times.
    public func cancel() {
        let actions = state.withLock { s -> [@Sendable () -> Void] in
            guard !s.isCancelled else { return [] }
            s.isCancelled = true
            s.priorityAction = nil
            defer { s.cancelActions = [] }
            return s.cancelActions
        }
        for action in actions { action() }
    }

    /// Adds what a ``cancel()`` does; runs it at once if the token is already cancelled.
    public func onCancel(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if !s.isCancelled { s.cancelActions.append(action) }
            return s.isCancelled
        }
        if runNow { action() }
    }

    /// Sets what a ``priority`` change does (replacing any earlier action).
    public func onPriorityChange(_ action: @escaping @Sendable (ImageLoadPriority) -> Void) {
        state.withLock { s in if !s.isCancelled { s.priorityAction = action } }
    }
}
