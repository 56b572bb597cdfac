import Foundation
import Synchronization

/// One prefetch's counts, running loads and cancel flag, kept by ``ImagePrefetcher`` for
/// the length of one ``ImagePrefetcher/prefetch(_:progress:)`` (WebImageCompat's
/// `PrefetchToken` hands it to SDWebImage-style callers).
///
/// It finishes exactly once, when every URL is done with: loaded, failed, or (after
/// ``cancel()``) given up. Thread-safe.
package final class PrefetchRun: Sendable {
    /// The URLs of this prefetch, in order.
    package let urls: [URL]

    private struct State {
        var finished = 0
        var skipped = 0
        var loads: [ObjectIdentifier: ImageTask] = [:]
        var isCancelled = false
        var isFinished = false
    }
    private let state = Mutex(State())

    package init(urls: [URL]) {
        self.urls = urls
    }

    /// URLs done with so far.
    package var finishedCount: Int { state.withLock { $0.finished } }
    /// URLs done with that did not end in the cache so far.
    package var skippedCount: Int { state.withLock { $0.skipped } }
    /// Whether the prefetch finished (its completion, if any, has run or is scheduled).
    package var isFinished: Bool { state.withLock { $0.isFinished } }
    var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Stops this prefetch: running loads are cancelled, unstarted URLs are skipped, and
    /// the prefetch ends once the cancelled loads have reported. Other prefetches are not
    /// touched.
    package func cancel() {
        let loads = state.withLock { s -> [ImageTask] in
            guard !s.isCancelled, !s.isFinished else { return [] }
            s.isCancelled = true
            return Array(s.loads.values)
        }
        for load in loads { load.cancel() }
    }

    /// Keeps a running load for ``cancel()``; `false` (and the load cancelled) once cancelled.
    func track(_ load: ImageTask) -> Bool {
        let cancelled = state.withLock { s -> Bool in
            if !s.isCancelled { s.loads[ObjectIdentifier(load)] = load }
            return s.isCancelled
        }
        if cancelled { load.cancel() }
        return !cancelled
    }

    /// Counts one URL done with; returns the new finished and skipped counts.
    func count(_ load: ImageTask?, cached: Bool) -> (finished: Int, skipped: Int) {
        state.withLock { s in
            if let load { s.loads[ObjectIdentifier(load)] = nil }
            s.finished += 1
            if !cached { s.skipped += 1 }
            return (s.finished, s.skipped)
        }
    }

    /// Counts the URLs never started as skipped and marks the prefetch finished.
    package func end() -> PrefetchResult {
        state.withLock { s in
            let unstarted = urls.count - s.finished
            s.finished += unstarted
            s.skipped += unstarted
            s.isFinished = true
            return PrefetchResult(finishedCount: s.finished, skippedCount: s.skipped)
        }
    }
}
