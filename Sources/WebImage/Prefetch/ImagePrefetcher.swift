import Foundation
import Synchronization

/// Loads URLs into the cache ahead of time: SDWebImage's `SDWebImagePrefetcher`.
///
/// ```swift
/// let result = await ImagePrefetcher.shared.prefetch(urls)
/// print("\(result.finishedCount - result.skippedCount) cached")
/// ```
///
/// Each call keeps its own counts; several run at once without mixing them. Each runs at
/// most ``maxConcurrentPrefetchCount`` loads at a time through ``manager`` with
/// ``options`` (default ``WebImageOptions/lowPriority``) and
/// ``context``. ``prefetch(_:progress:)`` runs on the calling task (its loads in tasks of
/// their own) and reports its progress there, one report at a time; WebImageCompat's
/// `prefetchURLs(_:progress:completed:)` (SDWebImage's callback form) runs it in a new
/// task and delivers on a queue WebImageCompat keeps, so the prefetcher owns no queue.
/// Thread-safe.
public final class ImagePrefetcher: Sendable {
    /// The shared prefetcher, loading through ``ImageManager/shared``.
    public static let shared = ImagePrefetcher(manager: .shared)

    /// The manager the loads run through.
    public let manager: ImageManager
    private struct Settings {
        var maxConcurrentPrefetchCount = 3
        var options: WebImageOptions = [.lowPriority]
        var context = WebImageContext()
    }
    private let settings = Mutex(Settings())
    private let runs = Mutex<[ObjectIdentifier: PrefetchRun]>([:])

    /// Creates a prefetcher loading through `manager`; by default a new manager of its
    /// own over the shared cache and ``ImageLoadersManager/shared``.
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

    /// The context of every load. Default `WebImageContext()`.
    public var context: WebImageContext {
        get { settings.withLock { $0.context } }
        set { settings.withLock { $0.context = newValue } }
    }

    /// Whether any prefetch has not completed yet.
    public var isPrefetching: Bool { runs.withLock { !$0.isEmpty } }

    /// Loads `urls` into the cache and returns how it went.
    ///
    /// `progress` runs after each URL with the counts so far: `finished` URLs done with,
    /// `skipped` of them not cached, of `total`; the returned ``PrefetchResult`` has the
    /// last two counts. The reports run on the calling task, one at a time and in counting
    /// order, all before this returns (keep them quick: the next load starts after the
    /// report). Cancelling the task cancels
    /// the prefetch, which then returns with the skipped count.
    public func prefetch(
        _ urls: [URL], progress: (@Sendable (_ finished: Int, _ skipped: Int, _ total: Int) -> Void)? = nil
    ) async -> PrefetchResult {
        let run = PrefetchRun(urls: urls)
        return await withTaskCancellationHandler {
            await perform(run, progress: progress)
        } onCancel: {
            run.cancel()
        }
    }

    /// Cancels every prefetch of this prefetcher; each completes with its skipped count.
    public func cancelPrefetching() {
        for run in runs.withLock({ Array($0.values) }) { run.cancel() }
    }

    /// Runs one prefetch: at most ``maxConcurrentPrefetchCount`` loads at once, a new one
    /// as each ends, none after a cancel.
    package func perform(
        _ run: PrefetchRun, progress: (@Sendable (_ finished: Int, _ skipped: Int, _ total: Int) -> Void)?
    ) async -> PrefetchResult {
        let id = ObjectIdentifier(run)
        runs.withLock { $0[id] = run }
        defer { runs.withLock { _ = $0.removeValue(forKey: id) } }
        let current = settings.withLock { $0 }
        let total = run.urls.count
        await withTaskGroup(of: (ImageTask?, Bool).self) { group in
            var next = run.urls.startIndex
            func startNext() {
                guard !run.isCancelled, next < run.urls.endIndex else { return }
                let url = run.urls[next]
                next += 1
                group.addTask { [manager] in
                    await Self.load(url, manager: manager, options: current.options, context: current.context, run: run)
                }
            }
            for _ in 0..<current.maxConcurrentPrefetchCount { startNext() }
            // Counted and reported here, on the calling task, as each load ends: so the
            // reports come in counting order and all before the result is read.
            while let (load, cached) = await group.next() {
                let (finished, skipped) = run.count(load, cached: cached)
                progress?(finished, skipped, total)
                startNext()
            }
        }
        return run.end()
    }

    /// One load through the manager; whether its result ended in the cache.
    private static func load(
        _ url: URL, manager: ImageManager, options: WebImageOptions, context: WebImageContext, run: PrefetchRun
    ) async -> (ImageTask?, Bool) {
        let outcome = Mutex<CheckedContinuation<Bool, Never>?>(nil)
        let task = Mutex<ImageTask?>(nil)
        let cached = await withCheckedContinuation { continuation in
            outcome.withLock { $0 = continuation }
            let load = manager.start(url, originalKey: manager.loadKey(for: url, context: context), options: options, context: context) { event in
                guard case .result(let result, true) = event else { return }
                let ok = result.map { $0.error == nil && ($0.image != nil || $0.data != nil) } ?? true
                outcome.withLock { $0.take() }?.resume(returning: ok)
            }
            task.withLock { $0 = load }
            if load.isEnded || !run.track(load) {
                load.cancel()
                outcome.withLock { $0.take() }?.resume(returning: false)
            }
        }
        return (task.withLock { $0 }, cached)
    }
}

// MARK: - PrefetchResult

/// How a prefetch ended: ``finishedCount`` URLs done with, ``skippedCount`` of them not
/// cached (failed, cancelled or never started).
public struct PrefetchResult: Sendable, Hashable {
    /// URLs done with: all of them once the prefetch ended.
    public var finishedCount: Int
    /// URLs that did not end in the cache.
    public var skippedCount: Int

    /// Creates a result.
    public init(finishedCount: Int, skippedCount: Int) {
        self.finishedCount = finishedCount
        self.skippedCount = skippedCount
    }
}
