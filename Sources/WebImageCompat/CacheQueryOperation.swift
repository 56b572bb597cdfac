import Dispatch
import Synchronization
import WebImage

/// A running cache query of the callback form
/// (``WebImageCompat/ImageCachingCallbacks/queryImage(forKey:options:context:completion:)``): cancel it, or let
/// it deliver its one result.
///
/// The completion runs exactly once: with the result, or with
/// ``WebImageCodecs/WebImageError/Code/cancelled`` when ``cancel()`` came first. Cancelling after the
/// result was delivered does nothing. Thread-safe.
public final class CacheQueryOperation: Sendable {
    /// The completion of a query.
    public typealias Completion = @Sendable (Result<ImageCacheQueryResult, WebImageError>) -> Void

    private struct State {
        var completion: Completion?
        var isCancelled = false
        var cancelHandlers: [@Sendable () -> Void] = []
    }
    private let state: Mutex<State>
    private let callbackQueue: DispatchQueue

    /// An operation that delivers to `completion` on `callbackQueue`.
    public init(callbackQueue: DispatchQueue, completion: @escaping Completion) {
        self.callbackQueue = callbackQueue
        state = Mutex(State(completion: completion))
    }

    /// Whether ``cancel()`` was called before the result was delivered.
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Whether the completion has been called or scheduled (by a result or a cancel).
    public var isFinished: Bool { state.withLock { $0.completion == nil } }

    /// Stops the query: the completion gets ``WebImageCodecs/WebImageError/Code/cancelled`` on the
    /// callback queue and pending work is withdrawn. Does nothing once finished.
    public func cancel() {
        let taken = state.withLock { s -> (Completion, [@Sendable () -> Void])? in
            guard let completion = s.completion else { return nil }
            s.completion = nil
            s.isCancelled = true
            defer { s.cancelHandlers = [] }
            return (completion, s.cancelHandlers)
        }
        guard let (completion, handlers) = taken else { return }
        for handler in handlers { handler() }
        callbackQueue.async { completion(.failure(.cancelled("The cache query was cancelled"))) }
    }

    /// Delivers `result` unless the operation already finished.
    ///
    /// - Parameters:
    ///   - result: what the query found, or why it failed.
    ///   - synchronously: call the completion on this thread now instead of on
    ///     the callback queue.
    /// - Returns: whether this call delivered the result.
    @discardableResult
    public func finish(with result: Result<ImageCacheQueryResult, WebImageError>, synchronously: Bool = false) -> Bool {
        let completion = state.withLock { s -> Completion? in
            defer {
                s.completion = nil
                s.cancelHandlers = []
            }
            return s.completion
        }
        guard let completion else { return false }
        if synchronously {
            completion(result)
        } else {
            callbackQueue.async { completion(result) }
        }
        return true
    }

    /// Runs `handler` when the operation is cancelled (at once if it already was).
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if s.isCancelled { return true }
            if s.completion != nil { s.cancelHandlers.append(handler) }
            return false
        }
        if runNow { handler() }
    }
}
