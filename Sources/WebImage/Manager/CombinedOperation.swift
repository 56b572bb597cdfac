import Dispatch
import Foundation
import Synchronization

/// One running ``ImageManager`` load: the cache query and the download behind one
/// cancel button (SDWebImage's `SDWebImageCombinedOperation`).
///
/// ``cancel()`` stops whichever part is running (the cache query, the download, or
/// both) and the load's completion receives ``WebImageError/Code/cancelled`` exactly
/// once, on the load's callback queue, unless the load had already ended. After that
/// nothing more is delivered. Thread-safe; cancelling again does nothing.
public final class CombinedOperation: Sendable {
    /// Receives each result; `isLast` is `true` for the one after which nothing follows.
    /// A `nil` result with `isLast` ends the load without a further result (a refresh
    /// that found the cached image still valid).
    typealias Handler = @Sendable (_ result: ImageLoadResult?, _ isLast: Bool) -> Void

    private struct State {
        var handler: Handler?
        var cacheOperation: CacheQueryOperation?
        var loaderToken: ImageLoadToken?
        var isCancelled = false
        var onEnd: (@Sendable () -> Void)?
        var priority: ImageLoadPriority
    }
    private let state: Mutex<State>
    /// The queue results are delivered on.
    let callbackQueue: DispatchQueue

    /// The URL being loaded.
    public let url: URL?

    init(url: URL?, callbackQueue: DispatchQueue, priority: ImageLoadPriority = .normal, handler: @escaping Handler) {
        self.url = url
        self.callbackQueue = callbackQueue
        state = Mutex(State(handler: handler, priority: priority))
    }

    /// The load's priority. A change while the download is queued reorders the
    /// downloader's queue; a change before the download starts (during the cache query)
    /// is the priority it starts with.
    public var priority: ImageLoadPriority {
        get { state.withLock { $0.priority } }
        set {
            let token = state.withLock { s -> ImageLoadToken? in
                s.priority = newValue
                return s.loaderToken
            }
            token?.priority = newValue
        }
    }

    /// Whether ``cancel()`` was called before the load ended.
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Whether the load ended: its last result was delivered (or scheduled), or it was cancelled.
    public var isFinished: Bool { state.withLock { $0.handler == nil } }

    /// Stops the load. The completion gets ``WebImageError/Code/cancelled`` once, on the
    /// callback queue; does nothing once the load ended.
    public func cancel() {
        let taken = state.withLock { s -> (Handler, CacheQueryOperation?, ImageLoadToken?, (@Sendable () -> Void)?)? in
            guard let handler = s.handler else { return nil }
            s.isCancelled = true
            s.handler = nil
            defer {
                s.cacheOperation = nil
                s.loaderToken = nil
                s.onEnd = nil
            }
            return (handler, s.cacheOperation, s.loaderToken, s.onEnd)
        }
        guard let (handler, cacheOperation, loaderToken, onEnd) = taken else { return }
        WebImageMetrics.countFailure(.cancelled)
        cacheOperation?.cancel()
        loaderToken?.cancel()
        onEnd?()
        let result = ImageLoadResult.failure(.cancelled("The image load was cancelled"), url: url)
        callbackQueue.async { handler(result, true) }
    }

    // MARK: Pipeline side

    /// Runs `onEnd` once when the load ends, before its last result is delivered.
    func setOnEnd(_ onEnd: @escaping @Sendable () -> Void) {
        state.withLock { $0.onEnd = onEnd }
    }

    /// Attaches the running cache query; cancels it at once if the load was cancelled.
    func setCacheOperation(_ operation: CacheQueryOperation) {
        let cancelNow = state.withLock { s -> Bool in
            if s.handler == nil { return true }
            s.cacheOperation = operation
            return false
        }
        if cancelNow { operation.cancel() }
    }

    /// Attaches the running download; cancels it at once if the load was cancelled.
    func setLoaderToken(_ token: ImageLoadToken) {
        let priority = state.withLock { s -> ImageLoadPriority? in
            if s.handler == nil { return nil }
            s.loaderToken = token
            return s.priority
        }
        guard let priority else {
            token.cancel()
            return
        }
        token.priority = priority
    }

    /// Delivers `result` unless the load already ended; with `isLast` the load ends.
    ///
    /// - Parameter inline: call the handler on this thread, which must be the thread that
    ///   asked for a synchronous cache hit; otherwise it runs on the callback queue.
    func deliver(_ result: ImageLoadResult?, isLast: Bool, inline: Bool) {
        let taken = state.withLock { s -> (Handler, (@Sendable () -> Void)?)? in
            guard let handler = s.handler else { return nil }
            guard isLast else { return (handler, nil) }
            s.handler = nil
            defer {
                s.cacheOperation = nil
                s.loaderToken = nil
                s.onEnd = nil
            }
            return (handler, s.onEnd)
        }
        guard let (handler, onEnd) = taken else { return }
        if isLast, let error = result?.error { WebImageMetrics.countFailure(error.code) }
        onEnd?()
        if inline {
            handler(result, isLast)
        } else {
            callbackQueue.async { handler(result, isLast) }
        }
    }
}
