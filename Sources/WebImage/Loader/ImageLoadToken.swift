import Foundation
import Synchronization

/// One caller's handle on a load: cancel it and only this caller stops; change its
/// priority and the loader's queue reorders.
///
/// Every ``ImageLoader/requestImage(with:options:context:progress:completed:)`` call
/// returns its own token, even when several callers share one transfer. Cancelling
/// delivers ``WebImageError/Code/cancelled`` to this caller at once (unless it already
/// completed) and stops the transfer when no caller is left. Thread-safe; cancelling
/// twice does nothing more.
public final class ImageLoadToken: Sendable {
    /// The URL this token loads.
    public let url: URL?
    private struct State {
        var cancelAction: (@Sendable () -> Void)?
        var priorityAction: (@Sendable (ImageLoadPriority) -> Void)?
        var priority: ImageLoadPriority
        var isCancelled = false
    }
    private let state: Mutex<State>

    /// Creates a token whose first ``cancel()`` runs `cancel` and whose ``priority``
    /// changes run `setPriority` (outside the token's lock, on the changing thread).
    public init(
        url: URL?, priority: ImageLoadPriority = .normal, cancel: (@Sendable () -> Void)? = nil,
        setPriority: (@Sendable (ImageLoadPriority) -> Void)? = nil
    ) {
        self.url = url
        state = Mutex(State(cancelAction: cancel, priorityAction: setPriority, priority: priority))
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
        let action = state.withLock { s -> (@Sendable () -> Void)? in
            s.isCancelled = true
            s.priorityAction = nil
            defer { s.cancelAction = nil }
            return s.cancelAction
        }
        action?()
    }
}
