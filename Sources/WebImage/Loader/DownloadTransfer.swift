import Dispatch
import Foundation
import Synchronization

/// One caller of a transfer: what it asked for and where its callbacks go.
struct DownloadCaller: Sendable {
    /// How a caller wants the body turned into a result; callers with equal keys share a decode.
    enum DecodeKey: Hashable, Sendable {
        case dataOnly
        /// `lazy`: an animation becomes a lazy image (``DecodedImage/decodingLazily(_:options:coder:)``).
        case decode(ImageDecodeOptions, lazy: Bool)
    }

    let id: UInt64
    let options: DownloaderOptions
    /// Starts as the options say; ``ImageLoadToken/priority`` changes it.
    var priority: ImageLoadPriority
    let decodeKey: DecodeKey
    let coder: any ImageCoder
    let queue: DispatchQueue
    /// Whether the final result is handed over on the transfer's own task instead of
    /// `queue`: only for the downloader's own `async` API, whose completion just resumes
    /// a continuation (no user code), which saves a thread hop per load.
    var deliversInline = false
    let progress: ImageLoaderProgress?
    let completed: ImageLoaderCompletion

    var wantsPartials: Bool { options.contains(.progressiveLoad) && decodeKey != .dataOnly }
}

/// A callback to run once the lock is released.
struct DownloadDelivery: Sendable {
    let caller: DownloadCaller
    let result: Result<ImageLoadResponse, WebImageError>

    func perform() {
        let (completed, result) = (caller.completed, result)
        if caller.deliversInline {
            completed(result)
        } else {
            caller.queue.async { completed(result) }
        }
    }
}

/// The state of one transfer shared by every caller of one URL.
///
/// Callbacks that may race a cancellation (progress, partial images, `cancelled`) are
/// dispatched while the lock is held, so on a serial callback queue a caller never sees
/// anything after its final result. Lock order: the downloader's lock may be held when
/// taking this one, never the reverse.
final class DownloadTransfer: Sendable {
    enum Phase: Sendable { case queued, running, delivering, done }

    let id: UInt64
    let url: URL
    /// The coalescing key (``ImageDownloader/coalescingKey(for:options:)``).
    let key: String
    /// The request every attempt sends (before any `Range` header).
    let request: ImageDownloadRequest
    /// The network options and context of the caller that started the transfer.
    let options: DownloaderOptions
    let context: ImageLoaderContext

    private struct State {
        var callers: [DownloadCaller] = []
        var phase = Phase.queued
        var task: Task<Void, Never>?
        var lastProgressAt: ContinuousClock.Instant?
        var lastProgressBytes = -1
        var partialInFlight = false
        var progressiveDecoder: (any ProgressiveImageDecoder)?
    }
    private let state = Mutex(State())

    init(id: UInt64, url: URL, key: String, request: ImageDownloadRequest, options: DownloaderOptions,
         context: ImageLoaderContext) {
        self.id = id
        self.url = url
        self.key = key
        self.request = request
        self.options = options
        self.context = context
    }

    var phase: Phase { state.withLock { $0.phase } }

    /// Adds a caller; `false` once the transfer is finishing or abandoned.
    func add(_ caller: DownloadCaller) -> Bool {
        state.withLock { s in
            guard s.phase == .queued || s.phase == .running else { return false }
            s.callers.append(caller)
            return true
        }
    }

    /// Changes one caller's priority.
    ///
    /// - Returns: the transfer's new priority (the highest of its callers') while it is
    ///   queued, for the downloader to reorder its queue; `nil` otherwise.
    func setPriority(_ priority: ImageLoadPriority, callerID: UInt64) -> ImageLoadPriority? {
        state.withLock { s in
            guard let index = s.callers.firstIndex(where: { $0.id == callerID }) else { return nil }
            s.callers[index].priority = priority
            guard s.phase == .queued else { return nil }
            return s.callers.map(\.priority).max()
        }
    }

    /// The highest priority among the callers.
    var priority: ImageLoadPriority {
        state.withLock { $0.callers.map(\.priority).max() ?? .normal }
    }

    /// Moves a queued transfer to running; `false` if it was abandoned meanwhile.
    func markRunning() -> Bool {
        state.withLock { s in
            guard s.phase == .queued else { return false }
            s.phase = .running
            return true
        }
    }

    /// Keeps the task for cancellation; `false` when the transfer was abandoned before
    /// it got its task, which the caller then cancels.
    func setTask(_ task: Task<Void, Never>) -> Bool {
        state.withLock { s in
            guard s.phase != .done else { return false }
            s.task = task
            return true
        }
    }

    /// Removes one caller and tells it `cancelled`. When it was the last caller the
    /// transfer is abandoned: the result says so and carries the task to cancel.
    func cancel(callerID: UInt64) -> (abandoned: Bool, wasQueued: Bool, task: Task<Void, Never>?) {
        state.withLock { s in
            guard let index = s.callers.firstIndex(where: { $0.id == callerID }) else { return (false, false, nil) }
            let caller = s.callers.remove(at: index)
            DownloadDelivery(caller: caller, result: .failure(.cancelled())).perform()
            guard s.callers.isEmpty, s.phase != .done else { return (false, false, nil) }
            let wasQueued = s.phase == .queued
            s.phase = .done
            return (true, wasQueued, s.task)
        }
    }

    /// Ends the transfer for every caller with `error`; returns the callbacks to run.
    func fail(_ error: WebImageError) -> [DownloadDelivery] {
        state.withLock { s in
            s.phase = .done
            defer { s.callers = [] }
            return s.callers.map { DownloadDelivery(caller: $0, result: .failure(error)) }
        }
    }

    /// Cancels every caller at once; returns the task to cancel and whether it was queued.
    func cancelAll() -> (wasQueued: Bool, task: Task<Void, Never>?) {
        state.withLock { s in
            guard s.phase != .done else { return (false, nil) }
            for caller in s.callers { DownloadDelivery(caller: caller, result: .failure(.cancelled())).perform() }
            s.callers = []
            let wasQueued = s.phase == .queued
            s.phase = .done
            return (wasQueued, s.task)
        }
    }

    // MARK: Progress and partial images

    /// Reports progress to every caller that asked, at most once per `interval`
    /// unless `force`; never the same byte count twice.
    func reportProgress(received: Int, expected: Int, interval: TimeInterval, force: Bool) {
        let now = ContinuousClock.now
        state.withLock { s in Self.reportProgress(&s, now: now, received: received, expected: expected, interval: interval, force: force) }
    }

    /// A body chunk arrived: reports progress and claims the partial decode slot (see
    /// ``beginPartialDecode(data:)``) under one lock, as this runs once per chunk.
    func chunkArrived(received: Int, expected: Int, interval: TimeInterval, data: Data) -> (any ProgressiveImageDecoder)? {
        let now = ContinuousClock.now
        return state.withLock { s in
            Self.reportProgress(&s, now: now, received: received, expected: expected, interval: interval, force: false)
            return Self.beginPartialDecode(&s, data: data)
        }
    }

    private static func reportProgress(
        _ s: inout State, now: ContinuousClock.Instant, received: Int, expected: Int, interval: TimeInterval, force: Bool
    ) {
        guard s.phase == .running, received != s.lastProgressBytes else { return }
        if !force, let last = s.lastProgressAt, now - last < .seconds(interval) { return }
        s.lastProgressAt = now
        s.lastProgressBytes = received
        for caller in s.callers {
            guard let progress = caller.progress else { continue }
            caller.queue.async { progress(received, expected) }
        }
    }

    /// Claims the transfer's one partial decode slot for `data` and returns the decoder
    /// to use, or `nil` when nobody wants partials, a decode is in flight, or no coder
    /// recognises the data yet.
    func beginPartialDecode(data: Data) -> (any ProgressiveImageDecoder)? {
        state.withLock { s in Self.beginPartialDecode(&s, data: data) }
    }

    private static func beginPartialDecode(_ s: inout State, data: Data) -> (any ProgressiveImageDecoder)? {
        guard s.phase == .running, !s.partialInFlight,
              let first = s.callers.first(where: \.wantsPartials),
              case .decode(let options, _) = first.decodeKey
        else { return nil }
        if s.progressiveDecoder == nil {
            guard let coder = first.coder as? any ProgressiveImageCoder, coder.canDecodeIncrementally(data)
            else { return nil }
            s.progressiveDecoder = coder.makeIncrementalDecoder(options: options)
        }
        s.partialInFlight = true
        return s.progressiveDecoder
    }

    /// Releases the partial decode slot and sends `image` to the callers that want
    /// partials, unless the body has already ended.
    func endPartialDecode(image: DecodedImage?, http: HTTPResponseInfo) {
        state.withLock { s in
            s.partialInFlight = false
            guard let image, s.phase == .running else { return }
            let response = ImageLoadResponse(url: url, image: image, data: nil, isFinished: false, http: http)
            for caller in s.callers where caller.wantsPartials {
                DownloadDelivery(caller: caller, result: .success(response)).perform()
            }
        }
    }

    // MARK: Final delivery

    /// Stops partial images: the body is complete and the final decodes begin.
    func beginDelivering() {
        state.withLock { s in if s.phase == .running { s.phase = .delivering } }
    }

    /// Either the decode keys (with a coder each) still missing from `results`, or,
    /// when none is missing, the final callbacks: the transfer is then done.
    func complete(
        results: [DownloadCaller.DecodeKey: Result<DecodedImage?, WebImageError>],
        data: Data,
        http: HTTPResponseInfo,
        attempts: Int
    ) -> (missing: [(DownloadCaller.DecodeKey, any ImageCoder)], deliveries: [DownloadDelivery]) {
        state.withLock { s in
            var missing: [(DownloadCaller.DecodeKey, any ImageCoder)] = []
            for caller in s.callers where results[caller.decodeKey] == nil
                && !missing.contains(where: { $0.0 == caller.decodeKey }) {
                missing.append((caller.decodeKey, caller.coder))
            }
            guard missing.isEmpty else { return (missing, []) }
            s.phase = .done
            defer { s.callers = [] }
            return ([], s.callers.compactMap { caller in
                guard let result = results[caller.decodeKey] else { return nil }
                return DownloadDelivery(caller: caller, result: result.map {
                    ImageLoadResponse(url: url, image: $0, data: data, isFinished: true, http: http, attempts: attempts)
                })
            })
        }
    }
}
