import Foundation
import Synchronization

/// One image load you can watch, reprioritise and cancel (Nuke's `ImageTask`).
///
/// ```swift
/// let task = manager.imageTask(with: url, options: [.progressiveLoad])
/// task.priority = .high                       // reorders the downloader's queue
/// Task { for await p in task.progress { print(p.fractionCompleted) } }
/// Task { for await preview in task.previews { show(preview.image) } }
/// let response = try await task.response      // ImageResponse, or a thrown WebImageError
/// ```
///
/// Every load of an ``ImageManager`` has one, whichever API started it: the pipeline
/// reports its results here, and the callback API, ``ImageManager/loadImageStream(with:options:context:)``
/// and the view layer listen to it. ``progress`` and ``previews`` are single-consumer
/// streams that end when the load ends; values produced before a stream is first read
/// are not replayed (except the latest preview). ``response`` can be awaited any number of
/// times, from any task; cancelling a task that awaits it cancels the load. Thread-safe;
/// nothing is called under its lock.
public final class ImageTask: Sendable, Hashable {
    /// Bytes received so far and the bytes expected (`-1` when unknown).
    public struct Progress: Sendable, Hashable {
        public var completed: Int
        public var total: Int
        /// `completed / total` in 0…1, or 0 while the total is unknown.
        public var fractionCompleted: Double { total > 0 ? min(1, Double(completed) / Double(total)) : 0 }
    }

    /// Where the task stands.
    public enum State: Sendable, Hashable {
        case running, cancelled, completed
    }

    /// What a listener hears (WebImageCompat's callback adapter, the stream).
    package enum Event: Sendable {
        case progress(received: Int, expected: Int)
        /// A result: partial (`isFinished == false`), final, or `nil` with `isLast` for a
        /// load that ended without a further result (a refresh that found the image unchanged).
        case result(ImageLoadResult?, isLast: Bool)
    }

    /// The URL being loaded.
    public let url: URL

    private struct Shared {
        var response: Result<ImageResponse, WebImageError>?
        var waiters: [CheckedContinuation<Result<ImageResponse, WebImageError>, Never>] = []
        var progress: AsyncStream<Progress>.Continuation?
        var previews: AsyncStream<ImageResponse>.Continuation?
        var latestPreview: ImageResponse?
        var listener: (@Sendable (Event) -> Void)?
        var loaderToken: ImageLoadToken?
        var runner: Task<Void, Never>?
        var onEnd: (@Sendable () -> Void)?
        var isCancelled = false
        var isEnded = false
        var priority: ImageLoadPriority
        /// Deliveries decided under the lock, run in order after it is released.
        var outbox: [@Sendable () -> Void] = []
        /// Whether a thread is running the outbox (see ``drain()``).
        var isDraining = false

        /// Queues `action`; `true` when the caller must ``drain()`` after unlocking.
        mutating func send(_ action: @escaping @Sendable () -> Void) -> Bool {
            outbox.append(action)
            defer { isDraining = true }
            return !isDraining
        }
    }
    private let shared: Mutex<Shared>

    /// Whether anyone can hear progress: not a load of ``ImageManager/loadImage(with:options:context:)``,
    /// whose task is never handed out (so the downloader need not report it).
    let reportsProgress: Bool

    init(url: URL, priority: ImageLoadPriority, reportsProgress: Bool = true, listener: (@Sendable (Event) -> Void)? = nil) {
        self.url = url
        self.reportsProgress = reportsProgress
        shared = Mutex(Shared(listener: listener, priority: priority))
    }

    /// A task that is already over (a memory hit or an immediate failure).
    init(url: URL, finished result: Result<ImageResponse, WebImageError>) {
        self.url = url
        reportsProgress = false
        shared = Mutex(Shared(response: result, isEnded: true, priority: .normal))
    }

    // MARK: Public API

    /// The final image; throws the load's ``WebImageCodecs/WebImageError`` (``WebImageCodecs/WebImageError/Code/cancelled``
    /// after ``cancel()``). Cancelling the awaiting Swift task cancels the load.
    public var response: ImageResponse {
        get async throws(WebImageError) {
            if let result = shared.withLock({ $0.response }) { return try result.get() }
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let ready = shared.withLock { s -> Result<ImageResponse, WebImageError>? in
                        if let response = s.response { return response }
                        s.waiters.append(continuation)
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                cancel()
            }
            return try result.get()
        }
    }

    /// Progress of the download, throttled as the downloader reports it; ends with the load.
    public var progress: AsyncStream<Progress> {
        let (stream, continuation) = AsyncStream<Progress>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let (finishNow, replaced) = shared.withLock { s -> (Bool, AsyncStream<Progress>.Continuation?) in
            guard !s.isEnded else { return (true, nil) }
            defer { s.progress = continuation }
            return (false, s.progress)
        }
        replaced?.finish()
        if finishNow { continuation.finish() }
        return stream
    }

    /// Partial images of a progressive load (``WebImageOptions/progressiveLoad``), newest
    /// kept when the reader is slow; ends with the load.
    public var previews: AsyncStream<ImageResponse> {
        let (stream, continuation) = AsyncStream<ImageResponse>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (finishNow, replaced) = shared.withLock { s -> (Bool, AsyncStream<ImageResponse>.Continuation?) in
            guard s.response == nil else { return (true, nil) }
            defer { s.previews = continuation }
            // No one reads the new stream yet, so this yield resumes nothing.
            if let latest = s.latestPreview { continuation.yield(latest) }
            return (false, s.previews)
        }
        replaced?.finish()
        if finishNow { continuation.finish() }
        return stream
    }

    /// The load's priority; changing it while the download is queued moves it in the
    /// downloader's queue (see ``ImageLoadPriority``).
    public var priority: ImageLoadPriority {
        get { shared.withLock { $0.priority } }
        set {
            let token = shared.withLock { s -> ImageLoadToken? in
                s.priority = newValue
                return s.loaderToken
            }
            token?.priority = newValue
        }
    }

    /// Where the task stands now.
    public var state: State {
        shared.withLock { s in
            if s.isCancelled { return .cancelled }
            return s.response == nil ? .running : .completed
        }
    }

    /// Stops the load: ``response`` throws ``WebImageCodecs/WebImageError/Code/cancelled`` and a
    /// listener gets it as the last result at once. Does nothing once the load ended.
    public func cancel() {
        let taken = shared.withLock { s -> (ImageLoadToken?, Task<Void, Never>?)? in
            guard !s.isEnded, !s.isCancelled else { return nil }
            s.isCancelled = true
            return (s.loaderToken, s.runner)
        }
        guard let (token, runner) = taken else { return }
        token?.cancel()
        runner?.cancel()
        finish(.failure(.cancelled("The image load was cancelled"), url: url), isLast: true)
    }

    public static func == (lhs: ImageTask, rhs: ImageTask) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: Pipeline side

    /// Whether ``cancel()`` was called.
    var isCancelled: Bool { shared.withLock { $0.isCancelled } }

    /// Whether the load ended: its last result was delivered, or it was cancelled.
    package var isEnded: Bool { shared.withLock { $0.isEnded } }

    /// Keeps the Swift task running the pipeline, so ``cancel()`` cancels it.
    func setRunner(_ runner: Task<Void, Never>) {
        let cancelNow = shared.withLock { s -> Bool in
            s.runner = s.isEnded ? nil : runner
            return s.isCancelled
        }
        if cancelNow { runner.cancel() }
    }

    /// Runs `onEnd` once when the load ends, before its last result reaches anyone (it
    /// runs under the task's lock: it must only update a registry).
    func setOnEnd(_ onEnd: @escaping @Sendable () -> Void) {
        let runNow = shared.withLock { s -> Bool in
            if !s.isEnded { s.onEnd = onEnd }
            return s.isEnded
        }
        if runNow { onEnd() }
    }

    /// Connects the download's token: priority changes reach it, and a cancel cancels it.
    func attach(_ token: ImageLoadToken) {
        let (cancelNow, priority) = shared.withLock { s -> (Bool, ImageLoadPriority) in
            if !s.isCancelled { s.loaderToken = token }
            return (s.isCancelled, s.priority)
        }
        if cancelNow { token.cancel() } else if token.priority != priority { token.priority = priority }
    }

    func reportProgress(received: Int, expected: Int) {
        let mustDrain = shared.withLock { s -> Bool in
            guard !s.isEnded else { return false }
            let (stream, listener) = (s.progress, s.listener)
            return s.send {
                stream?.yield(Progress(completed: received, total: expected))
                listener?(.progress(received: received, expected: expected))
            }
        }
        if mustDrain { drain() }
    }

    /// Runs the outbox after the lock is released, one thread at a time, so deliveries
    /// keep the order they were decided in (a partial image from a decode thread never
    /// follows the final result) while no stream, continuation or listener is ever
    /// called under the lock: resuming a continuation there could deadlock against a
    /// cancellation handler that calls ``cancel()`` while the runtime holds its task's lock.
    private func drain() {
        while true {
            let batch = shared.withLock { s -> [@Sendable () -> Void]? in
                guard !s.outbox.isEmpty else {
                    s.isDraining = false
                    return nil
                }
                defer { s.outbox = [] }
                return s.outbox
            }
            guard let batch else { return }
            for action in batch { action() }
        }
    }

    /// Takes one result from the pipeline: a partial image (a preview), a final result (the
    /// first one is the ``response``; a refreshCached second image only reaches the
    /// listener), or with `isLast` the end of the load.
    ///
    /// The listener, the streams and the awaiting tasks are fed after the task's lock is
    /// released, in the order decided under it (see ``drain()``).
    func finish(_ result: ImageLoadResult?, isLast: Bool) {
        if let result, !result.isFinished {
            guard result.error == nil, let image = result.image else { return }
            let preview = ImageResponse(
                image: image, url: url, cacheType: result.cacheType, cacheKey: result.cacheKey, isPreview: true)
            let mustDrain = shared.withLock { s -> Bool in
                guard !s.isEnded, s.response == nil else { return false }
                s.latestPreview = preview
                let (previews, listener) = (s.previews, s.listener)
                return s.send {
                    previews?.yield(preview)
                    listener?(.result(result, isLast: false))
                }
            }
            if mustDrain { drain() }
            return
        }
        let response = result.map { result -> Result<ImageResponse, WebImageError> in
            do throws(WebImageError) {
                return .success(try ImageResponse(result, url: url))
            } catch {
                return .failure(error)
            }
        } ?? .failure(WebImageError(.cacheNotModified, "The load ended without an image"))
        let mustDrain = shared.withLock { s -> Bool in
            guard !s.isEnded else { return false }
            var waiters: [CheckedContinuation<Result<ImageResponse, WebImageError>, Never>] = []
            var previews: AsyncStream<ImageResponse>.Continuation?
            if s.response == nil {
                s.response = response
                s.latestPreview = nil
                (waiters, s.waiters) = (s.waiters, [])
                (previews, s.previews) = (s.previews, nil)
            }
            var progress: AsyncStream<Progress>.Continuation?
            if isLast {
                s.isEnded = true
                // Off the manager's running list before anyone hears the load ended.
                s.onEnd?()
                progress = s.progress
            }
            let listener = s.listener
            if isLast { (s.progress, s.listener, s.onEnd, s.loaderToken, s.runner) = (nil, nil, nil, nil, nil) }
            // Counted before anyone hears the end, so a caller that reads the metrics once
            // its load has ended finds the failure there.
            let failure = isLast ? result?.error?.code : nil
            let mustDrain = s.send { [waiters, previews, progress] in
                if let failure { WebImageMetrics.countFailure(failure) }
                for waiter in waiters { waiter.resume(returning: response) }
                previews?.finish()
                progress?.finish()
                listener?(.result(result, isLast: isLast))
            }
            return mustDrain
        }
        if mustDrain { drain() }
    }
}
