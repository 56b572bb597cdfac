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
/// The load starts when the task is created (``ImageManager/imageTask(with:options:context:)``)
/// and runs the same pipeline as the callback API. ``progress`` and ``previews`` are
/// single-consumer streams that end when the load ends; values produced before a stream
/// is first read are not replayed (except the latest preview). ``response`` can be
/// awaited any number of times, from any task; cancelling a task that awaits it cancels
/// the load. Thread-safe.
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

    /// The URL being loaded.
    public let url: URL

    private struct Shared {
        var result: Result<ImageResponse, WebImageError>?
        var waiters: [CheckedContinuation<Result<ImageResponse, WebImageError>, Never>] = []
        var progress: AsyncStream<Progress>.Continuation?
        var previews: AsyncStream<ImageResponse>.Continuation?
        var latestPreview: ImageResponse?
        var operation: CombinedOperation?
        var isCancelled = false
        var priority: ImageLoadPriority
    }
    private let shared: Mutex<Shared>

    init(url: URL, priority: ImageLoadPriority) {
        self.url = url
        shared = Mutex(Shared(priority: priority))
    }

    /// A task that is already over (a memory hit or an immediate failure).
    init(url: URL, finished result: Result<ImageResponse, WebImageError>) {
        self.url = url
        shared = Mutex(Shared(result: result, priority: .normal))
    }

    // MARK: Public API

    /// The final image; throws the load's ``WebImageError`` (``WebImageError/Code/cancelled``
    /// after ``cancel()``). Cancelling the awaiting Swift task cancels the load.
    public var response: ImageResponse {
        get async throws(WebImageError) {
            if let result = shared.withLock({ $0.result }) { return try result.get() }
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let ready = shared.withLock { s -> Result<ImageResponse, WebImageError>? in
                        if let result = s.result { return result }
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
        let finishNow = shared.withLock { s -> Bool in
            guard s.result == nil else { return true }
            s.progress?.finish()
            s.progress = continuation
            return false
        }
        if finishNow { continuation.finish() }
        return stream
    }

    /// Partial images of a progressive load (``WebImageOptions/progressiveLoad``), newest
    /// kept when the reader is slow; ends with the load.
    public var previews: AsyncStream<ImageResponse> {
        let (stream, continuation) = AsyncStream<ImageResponse>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let finishNow = shared.withLock { s -> Bool in
            guard s.result == nil else { return true }
            s.previews?.finish()
            s.previews = continuation
            if let latest = s.latestPreview { continuation.yield(latest) }
            return false
        }
        if finishNow { continuation.finish() }
        return stream
    }

    /// The load's priority; changing it while the download is queued moves it in the
    /// downloader's queue (see ``ImageLoadPriority``).
    public var priority: ImageLoadPriority {
        get { shared.withLock { $0.priority } }
        set {
            let operation = shared.withLock { s -> CombinedOperation? in
                s.priority = newValue
                return s.operation
            }
            operation?.priority = newValue
        }
    }

    /// Where the task stands now.
    public var state: State {
        shared.withLock { s in
            if s.isCancelled { return .cancelled }
            return s.result == nil ? .running : .completed
        }
    }

    /// Stops the load; ``response`` throws ``WebImageError/Code/cancelled``. Does nothing
    /// once the load ended.
    public func cancel() {
        let operation = shared.withLock { s -> CombinedOperation? in
            guard s.result == nil, !s.isCancelled else { return nil }
            s.isCancelled = true
            return s.operation
        }
        // Without an operation yet, `attach` sees the flag and cancels it.
        operation?.cancel()
    }

    public static func == (lhs: ImageTask, rhs: ImageTask) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: Pipeline side

    /// Connects the running operation; applies a priority set or a cancel that came first.
    func attach(_ operation: CombinedOperation) {
        let (cancelNow, priority) = shared.withLock { s -> (Bool, ImageLoadPriority) in
            s.operation = operation
            return (s.isCancelled, s.priority)
        }
        if cancelNow {
            operation.cancel()
        } else if operation.priority != priority {
            operation.priority = priority
        }
    }

    func reportProgress(received: Int, expected: Int) {
        let continuation = shared.withLock { $0.progress }
        continuation?.yield(Progress(completed: received, total: expected))
    }

    /// Takes one callback result: a preview, or the final result (later ones, such as
    /// a refreshCached second image, are ignored: the response is the first final one).
    func receive(_ result: ImageLoadResult?, isLast: Bool) {
        if let result, !result.isFinished, result.error == nil, let image = result.image {
            let preview = ImageResponse(
                image: image, url: url, cacheType: result.cacheType, cacheKey: result.cacheKey, isPreview: true)
            let continuation = shared.withLock { s -> AsyncStream<ImageResponse>.Continuation? in
                guard s.result == nil else { return nil }
                s.latestPreview = preview
                return s.previews
            }
            continuation?.yield(preview)
            return
        }
        guard result != nil || isLast else { return }
        let outcome: Result<ImageResponse, WebImageError>
        if let result {
            do throws(WebImageError) {
                outcome = .success(try ImageResponse(result, url: url))
            } catch {
                outcome = .failure(error)
            }
        } else {
            outcome = .failure(WebImageError(.cacheNotModified, "The load ended without an image"))
        }
        finish(outcome)
    }

    func finish(_ outcome: Result<ImageResponse, WebImageError>) {
        let taken = shared.withLock { s -> (waiters: [CheckedContinuation<Result<ImageResponse, WebImageError>, Never>],
                                           progress: AsyncStream<Progress>.Continuation?,
                                           previews: AsyncStream<ImageResponse>.Continuation?)? in
            guard s.result == nil else { return nil }
            s.result = outcome
            s.latestPreview = nil
            s.operation = nil
            defer {
                s.waiters = []
                s.progress = nil
                s.previews = nil
            }
            return (s.waiters, s.progress, s.previews)
        }
        guard let taken else { return }
        taken.progress?.finish()
        taken.previews?.finish()
        for waiter in taken.waiters { waiter.resume(returning: outcome) }
    }
}
