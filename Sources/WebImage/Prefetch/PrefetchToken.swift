import Foundation
import Synchronization

/// One prefetch (``ImagePrefetcher/prefetch(_:progress:)``, or WebImageCompat's
/// `prefetchURLs(_:progress:completed:)`, which returns it): its own counts, its own loads,
/// its own cancel button.
///
/// It finishes exactly once, when every URL is done with: loaded, failed, or (after
/// ``cancel()``) given up. Thread-safe.
public final class PrefetchToken: Sendable {
    /// Reports `finished` of `total` URLs done with. Runs on the prefetcher's queue.
    public typealias Progress = @Sendable (_ finished: Int, _ total: Int) -> Void

    /// The URLs of this prefetch, in order.
    public let urls: [URL]

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
    public var finishedCount: Int { state.withLock { $0.finished } }
    /// URLs done with that did not end in the cache so far.
    public var skippedCount: Int { state.withLock { $0.skipped } }
    /// Whether the prefetch finished (its completion, if any, has run or is scheduled).
    public var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Stops this prefetch: running loads are cancelled, unstarted URLs are skipped, and
    /// the completion follows once the cancelled loads have reported. Other prefetches
    /// are not touched.
    public func cancel() {
        let loads = state.withLock { s -> [ImageTask] in
            guard !s.isCancelled, !s.isFinished else { return [] }
            s.isCancelled = true
            return Array(s.loads.values)
        }
        for load in loads { load.cancel() }
    }

    // MARK: Prefetcher side

    var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Keeps a running load for ``cancel()``; `false` (and the load cancelled) once cancelled.
    func track(_ load: ImageTask) -> Bool {
        let cancelled = state.withLock { s -> Bool in
            if !s.isCancelled { s.loads[ObjectIdentifier(load)] = load }
            return s.isCancelled
        }
        if cancelled { load.cancel() }
        return !cancelled
    }

    /// Counts one URL done with; returns the new finished count.
    func count(_ load: ImageTask?, cached: Bool) -> Int {
        state.withLock { s in
            if let load { s.loads[ObjectIdentifier(load)] = nil }
            s.finished += 1
            if !cached { s.skipped += 1 }
            return s.finished
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
