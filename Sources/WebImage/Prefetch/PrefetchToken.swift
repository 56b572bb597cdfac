import Dispatch
import Foundation
import Synchronization

/// One ``ImagePrefetcher/prefetchURLs(_:progress:completed:)`` call: its own counts, its
/// own loads, its own cancel button.
///
/// The completion runs exactly once, when every URL is done with: loaded, failed, or
/// (after ``cancel()``) given up. Thread-safe.
public final class PrefetchToken: Sendable {
    /// Reports `finished` of `total` URLs done with. Runs on the prefetcher's queue.
    public typealias Progress = @Sendable (_ finished: Int, _ total: Int) -> Void
    /// Reports `finished` URLs done with (always all of them) and `skipped`: how many of
    /// them did not end in the cache (failed, cancelled or never started). Runs on the
    /// prefetcher's queue.
    public typealias Completion = @Sendable (_ finished: Int, _ skipped: Int) -> Void

    /// The URLs of this prefetch, in order.
    public let urls: [URL]

    private struct State {
        var next = 0
        var finished = 0
        var skipped = 0
        /// Indices claimed and not yet done; their operations once they exist.
        var active: Set<Int> = []
        var operations: [Int: CombinedOperation] = [:]
        var isCancelled = false
        var completion: Completion?
    }
    private let state: Mutex<State>
    private let manager: ImageManager
    private let options: WebImageOptions
    private let context: WebImageContext
    private let maxConcurrent: Int
    private let progress: Progress?
    private let queue: DispatchQueue
    private let onEnd: @Sendable (PrefetchToken) -> Void

    init(
        urls: [URL], manager: ImageManager, options: WebImageOptions, context: WebImageContext, maxConcurrent: Int,
        queue: DispatchQueue, progress: Progress?, completion: Completion?, onEnd: @escaping @Sendable (PrefetchToken) -> Void
    ) {
        self.urls = urls
        self.manager = manager
        self.options = options
        var context = context
        context.callbackQueue = queue
        self.context = context
        self.maxConcurrent = max(1, maxConcurrent)
        self.queue = queue
        self.progress = progress
        self.onEnd = onEnd
        state = Mutex(State(completion: completion ?? { _, _ in }))
    }

    /// URLs done with so far.
    public var finishedCount: Int { state.withLock { $0.finished } }
    /// URLs done with that did not end in the cache so far.
    public var skippedCount: Int { state.withLock { $0.skipped } }
    /// Whether the completion has run (or is scheduled).
    public var isFinished: Bool { state.withLock { $0.completion == nil } }

    /// Stops this prefetch: running loads are cancelled, unstarted URLs are skipped, and
    /// the completion follows once the cancelled loads have reported. Other prefetches
    /// are not touched.
    public func cancel() {
        let operations = state.withLock { s -> [CombinedOperation] in
            guard !s.isCancelled, s.completion != nil else { return [] }
            s.isCancelled = true
            let unstarted = urls.count - s.next
            s.next = urls.count
            s.finished += unstarted
            s.skipped += unstarted
            return Array(s.operations.values)
        }
        for operation in operations { operation.cancel() }
        finishIfDone()
    }

    /// Starts loads up to the concurrency limit (completes at once for an empty list).
    func start() {
        while let next = nextURL() {
            let (index, url) = next
            let operation = manager.loadImage(with: url, options: options, context: context) { [self] result in
                loaded(index: index, result)
            }
            let ended = state.withLock { s -> Bool in
                guard s.active.contains(index) else { return true }
                s.operations[index] = operation
                return false
            }
            if ended || state.withLock({ $0.isCancelled }) { operation.cancel() }
        }
        finishIfDone()
    }

    /// Claims the next URL, keeping at most `maxConcurrent` running.
    private func nextURL() -> (Int, URL)? {
        state.withLock { s -> (Int, URL)? in
            guard !s.isCancelled, s.next < urls.count, s.active.count < maxConcurrent else { return nil }
            let index = s.next
            s.next += 1
            s.active.insert(index)
            return (index, urls[index])
        }
    }

    private func loaded(index: Int, _ result: ImageLoadResult) {
        guard result.isFinished else { return }
        let counts = state.withLock { s -> (Int, Int)? in
            guard s.active.remove(index) != nil else { return nil }
            s.operations[index] = nil
            s.finished += 1
            if result.error != nil || (result.image == nil && result.data == nil) { s.skipped += 1 }
            return (s.finished, urls.count)
        }
        guard let counts else { return }
        progress?(counts.0, counts.1)
        start()
    }

    private func finishIfDone() {
        let done = state.withLock { s -> (Completion, Int, Int)? in
            guard s.finished == urls.count, s.active.isEmpty, let completion = s.completion else { return nil }
            s.completion = nil
            return (completion, s.finished, s.skipped)
        }
        guard let (completion, finished, skipped) = done else { return }
        onEnd(self)
        queue.async { completion(finished, skipped) }
    }
}
