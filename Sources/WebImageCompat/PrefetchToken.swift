import Foundation
import WebImage

/// One prefetch started by ``WebImage/ImagePrefetcher``'s
/// `prefetchURLs(_:progress:completed:)`, which returns it: its own counts, its own loads,
/// its own cancel button. SDWebImage's `SDWebImagePrefetchToken`.
///
/// It finishes exactly once, when every URL is done with: loaded, failed, or (after
/// ``cancel()``) given up. Thread-safe. The `async` form,
/// ``WebImage/ImagePrefetcher/prefetch(_:progress:)``, needs no token: cancelling its
/// task cancels it.
public final class PrefetchToken: Sendable {
    /// Reports `finished` of `total` URLs done with. Runs on the prefetcher's
    /// `callbackQueue`.
    public typealias Progress = @Sendable (_ finished: Int, _ total: Int) -> Void
    /// Reports `finished` URLs done with (always all of them) and `skipped`: how many of
    /// them did not end in the cache (failed, cancelled or never started). Runs on the
    /// prefetcher's `callbackQueue`.
    public typealias Completion = @Sendable (_ finished: Int, _ skipped: Int) -> Void

    /// The counts and loads, kept by the prefetcher.
    let run: PrefetchRun

    init(urls: [URL]) {
        run = PrefetchRun(urls: urls)
    }

    /// The URLs of this prefetch, in order.
    public var urls: [URL] { run.urls }
    /// URLs done with so far.
    public var finishedCount: Int { run.finishedCount }
    /// URLs done with that did not end in the cache so far.
    public var skippedCount: Int { run.skippedCount }
    /// Whether the prefetch finished (its completion, if any, has run or is scheduled).
    public var isFinished: Bool { run.isFinished }

    /// Stops this prefetch: running loads are cancelled, unstarted URLs are skipped, and
    /// the completion follows once the cancelled loads have reported. Other prefetches
    /// are not touched.
    public func cancel() { run.cancel() }
}
