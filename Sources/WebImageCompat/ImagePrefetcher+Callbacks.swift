import Foundation
import WebImage

extension PrefetchToken {
    /// Reports `finished` URLs done with (always all of them) and `skipped`: how many of
    /// them did not end in the cache (failed, cancelled or never started). Runs on the
    /// prefetcher's serial callback queue.
    public typealias Completion = @Sendable (_ finished: Int, _ skipped: Int) -> Void
}

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
            _ = token.end()
            callbackQueue.async { completed?(0, 0) }
            return token
        }
        Task {
            let result = await perform(token, progress: progress)
            callbackQueue.async { completed?(result.finishedCount, result.skippedCount) }
        }
        return token
    }
}
