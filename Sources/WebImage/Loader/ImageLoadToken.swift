import Foundation
import Synchronization

/// One caller's handle on a load: cancel it and only this caller stops.
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
        var isCancelled = false
    }
    private let state: Mutex<State>

    /// Creates a token whose first ``cancel()`` runs `cancel`.
    public init(url: URL?, cancel: (@Sendable () -> Void)? = nil) {
        self.url = url
        state = Mutex(State(cancelAction: cancel))
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Cancels this caller's load. Safe from any thread, any number of times.
    public func cancel() {
        let action = state.withLock { s -> (@Sendable () -> Void)? in
            s.isCancelled = true
            defer { s.cancelAction = nil }
            return s.cancelAction
        }
        action?()
    }
}
