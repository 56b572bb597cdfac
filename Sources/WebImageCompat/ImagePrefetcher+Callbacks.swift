import Dispatch
import Foundation
import WebImage

/// The callback form of ``WebImage/ImagePrefetcher``: SDWebImagePrefetcher's
/// `prefetchURLs(_:progress:completed:)`, over ``WebImage/ImagePrefetcher/prefetch(_:progress:)``.
extension ImagePrefetcher {
    /// Starts loading `urls` into the cache in a new task and returns its token.
    ///
    /// `progress` runs after each URL with (finished, total); `completed` runs once with
    /// (finished, skipped) when all are done with, at once for an empty list. Both run
    /// on ``callbackQueue``, in counting order, never on the calling thread.
    @discardableResult
    public func prefetchURLs(
        _ urls: [URL], progress: PrefetchToken.Progress? = nil, completed: PrefetchToken.Completion? = nil
    ) -> PrefetchToken {
        let token = PrefetchToken(urls: urls)
        let queue = callbackQueue
        guard !urls.isEmpty else {
            _ = token.run.end()
            queue.async { completed?(0, 0) }
            return token
        }
        // SDWebImage's progress has no skipped count. The async form reports in counting
        // order on its task; a serial queue keeps that order.
        let report = progress.map { progress in
            { @Sendable (finished: Int, _: Int, total: Int) in queue.async { progress(finished, total) } }
        }
        Task {
            let result = await perform(token.run, progress: report)
            queue.async { completed?(result.finishedCount, result.skippedCount) }
        }
        return token
    }

    /// The serial queue ``prefetchURLs(_:progress:completed:)`` delivers on: one queue
    /// WebImageCompat keeps for every prefetcher (SDWebImagePrefetcher's `delegateQueue`,
    /// by default the main queue there), so the core prefetcher owns no queue.
    public var callbackQueue: DispatchQueue { PrefetcherCallbacks.sharedQueue }
}

enum PrefetcherCallbacks {
    static let sharedQueue = DispatchQueue(label: "WebImage.ImagePrefetcher.callbacks")
}
