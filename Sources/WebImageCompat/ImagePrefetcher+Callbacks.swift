import Foundation
import WebImage

/// The callback form of ``WebImage/ImagePrefetcher``: SDWebImagePrefetcher's
/// `prefetchURLs(_:progress:completed:)`, over ``WebImage/ImagePrefetcher/prefetch(_:progress:)``.
extension ImagePrefetcher {
    /// Starts loading `urls` into the cache in a new task and returns its token.
    ///
    /// `progress` runs after each URL with (finished, total); `completed` runs once with
    /// (finished, skipped) when all are done with, at once for an empty list. Both run
    /// on the prefetcher's serial callback queue, never on the calling thread.
    @discardableResult
    public func prefetchURLs(
        _ urls: [URL], progress: PrefetchToken.Progress? = nil, completed: PrefetchToken.Completion? = nil
    ) -> PrefetchToken {
        let token = PrefetchToken(urls: urls)
        guard !urls.isEmpty else {
            _ = token.run.end()
            callbackQueue.async { completed?(0, 0) }
            return token
        }
        // SDWebImage's progress has no skipped count.
        let report = progress.map { progress in { @Sendable (finished: Int, _: Int, total: Int) in progress(finished, total) } }
        Task {
            let result = await perform(token.run, progress: report)
            callbackQueue.async { completed?(result.finishedCount, result.skippedCount) }
        }
        return token
    }
}
