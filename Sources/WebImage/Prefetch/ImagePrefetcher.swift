import Dispatch
import Foundation
import Synchronization

/// Loads URLs into the cache ahead of time: SDWebImage's `SDWebImagePrefetcher`.
///
/// ```swift
/// let token = ImagePrefetcher.shared.prefetchURLs(urls, progress: nil) { finished, skipped in
///     print("\(finished - skipped) cached")
/// }
/// let result = await ImagePrefetcher.shared.prefetch(moreURLs)
/// ```
///
/// Each call gets its own ``PrefetchToken`` with its own counts; several run at once
/// without mixing them. Each runs at most ``maxConcurrentPrefetchCount`` loads at a time
/// through ``manager`` with ``options`` (default ``WebImageOptions/lowPriority``) and
/// ``context``. Progress and completion run on ``callbackQueue``, a serial queue of the
/// prefetcher. Thread-safe.
public final class ImagePrefetcher: Sendable {
    /// The shared prefetcher, loading through ``ImageManager/shared``.
    public static let shared = ImagePrefetcher(manager: .shared)

    /// The manager the loads run through.
    public let manager: ImageManager
    /// Where progress and completion callbacks (and the loads' callbacks) run.
    public let callbackQueue = DispatchQueue(label: "WebImage.ImagePrefetcher.callbacks")

    private struct Settings {
        var maxConcurrentPrefetchCount = 3
        var options: WebImageOptions = [.lowPriority]
        var context = WebImageContext()
    }
    private let settings = Mutex(Settings())
    private let tokens = Mutex<[ObjectIdentifier: PrefetchToken]>([:])

    /// Creates a prefetcher loading through `manager`; by default a new manager of its
    /// own over ``ImageCache/shared`` and ``ImageLoadersManager/shared``.
    public init(manager: ImageManager = ImageManager()) {
        self.manager = manager
    }

    /// Loads each prefetch runs at once. Default 3; at least 1.
    public var maxConcurrentPrefetchCount: Int {
        get { settings.withLock { $0.maxConcurrentPrefetchCount } }
        set { settings.withLock { $0.maxConcurrentPrefetchCount = max(1, newValue) } }
    }

    /// The options of every load. Default `[.lowPriority]`.
    public var options: WebImageOptions {
        get { settings.withLock { $0.options } }
        set { settings.withLock { $0.options = newValue } }
    }

    /// The context of every load; its callback queue is replaced by ``callbackQueue``.
    /// Default `WebImageContext()`.
    public var context: WebImageContext {
        get { settings.withLock { $0.context } }
        set { settings.withLock { $0.context = newValue } }
    }

    /// Whether any prefetch has not completed yet.
    public var isPrefetching: Bool { tokens.withLock { !$0.isEmpty } }

    /// Starts loading `urls` into the cache.
    ///
    /// `progress` runs after each URL with (finished, total); `completed` runs once with
    /// (finished, skipped) when all are done with, at once (on ``callbackQueue``) for an
    /// empty list. Both run on ``callbackQueue``.
    @discardableResult
    public func prefetchURLs(
        _ urls: [URL], progress: PrefetchToken.Progress? = nil, completed: PrefetchToken.Completion? = nil
    ) -> PrefetchToken {
        let settings = settings.withLock { $0 }
        let token = PrefetchToken(
            urls: urls, manager: manager, options: settings.options, context: settings.context,
            maxConcurrent: settings.maxConcurrentPrefetchCount, queue: callbackQueue, progress: progress,
            completion: completed
        ) { [weak self] token in
            self?.tokens.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(token)) }
        }
        tokens.withLock { $0[ObjectIdentifier(token)] = token }
        token.start()
        return token
    }

    /// ``prefetchURLs(_:progress:completed:)`` returning when the prefetch completed.
    /// Cancelling the task cancels the prefetch (which then completes with the skipped count).
    public func prefetch(_ urls: [URL], progress: PrefetchToken.Progress? = nil) async -> PrefetchResult {
        let slot = CancellationSlot()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let token = prefetchURLs(urls, progress: progress) { finished, skipped in
                    continuation.resume(returning: PrefetchResult(finishedCount: finished, skippedCount: skipped))
                }
                slot.set { token.cancel() }
            }
        } onCancel: {
            slot.cancel()
        }
    }

    /// Cancels every prefetch of this prefetcher; each completes with its skipped count.
    public func cancelPrefetching() {
        for token in tokens.withLock({ Array($0.values) }) { token.cancel() }
    }
}
