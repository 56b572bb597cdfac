import Dispatch
import Foundation
import Logging
import Synchronization

/// Downloads images over http and https with AsyncHTTPClient, decodes them off the
/// network threads, and shares one transfer among every caller of a URL
/// (SDWebImage's `SDWebImageDownloader`).
///
/// ```swift
/// let downloader = ImageDownloader(config: .default)
/// let response = try await downloader.loadImage(with: url, context: .init(decodeOptions: .init(thumbnailPixelSize: .init(width: 200, height: 200))))
/// await downloader.shutdown()
/// ```
///
/// - **Coalescing**: a request whose transfer is queued or running joins it when the two
///   requests are the same on the wire: URL, every header after the request modifier
///   (credentials, cookies, validators) and TLS settings; otherwise it gets its own
///   transfer. Each caller gets its own ``ImageLoadToken`` and its own decode (callers
///   asking for equal decode options share one). A request after the transfer finished
///   starts anew.
/// - **Security and retries**: ``DownloaderConfig/hopPolicy`` (source allowlist and SSRF
///   guard) checks the first request and every redirect hop; ``DownloaderConfig/retryPolicy`` retries transient failures, resuming a
///   body cut off mid-way with a `Range` request.
/// - **Queueing**: at most ``DownloaderConfig/maxConcurrentDownloads`` transfers run;
///   the rest start by priority, then in ``DownloaderConfig/executionOrder``.
/// - **Callbacks** run on the request's callback queue, else the config's, else a
///   serial queue of this downloader. Decoding runs on ``DownloaderConfig/decodeQueue``.
/// - **Lifecycle**: call ``shutdown()`` when done (or use ``withDownloader(config:isolation:_:)``);
///   a downloader that started a transfer and is released without it asserts in debug builds;
///   ``shared`` lives for the whole process and ignores it.
public final class ImageDownloader: ImageLoader {
    /// The shared downloader with the default configuration. It is never shut down.
    public static let shared = ImageDownloader(config: .default, isShared: true)

    /// Posted when a transfer starts (``DownloadEvent/started(_:)``).
    public static let downloadStartedNotification = Notification.Name("WebImage.ImageDownloader.started")
    /// Posted when a response arrives (``DownloadEvent/receivedResponse(_:statusCode:)``).
    public static let downloadReceivedResponseNotification = Notification.Name("WebImage.ImageDownloader.receivedResponse")
    /// Posted when a transfer received its whole body (``DownloadEvent/finished(_:)``).
    public static let downloadFinishedNotification = Notification.Name("WebImage.ImageDownloader.finished")
    /// Posted when a transfer ends for any reason (``DownloadEvent/stopped(_:)``).
    public static let downloadStoppedNotification = Notification.Name("WebImage.ImageDownloader.stopped")

    /// The configuration this downloader was created with.
    public let config: DownloaderConfig

    struct State {
        var transfers: [String: DownloadTransfer] = [:]
        var queue = DownloadQueue()
        var running = 0
        var tasks: [UInt64: Task<Void, Never>] = [:]
        var isSuspended = false
        var isShutDown = false
        /// Whether any transfer ever started (and so may have opened connections).
        var hasStarted = false
        var nextID: UInt64 = 0
    }
    let state = Mutex(State())
    let clients: DownloadClients
    let cookieJar = CookieJar()
    let callbackQueue: DispatchQueue
    private let broadcaster = EventBroadcaster<DownloadEvent>()
    static let logger = Logger(label: "WebImage.ImageDownloader")
    private let isShared: Bool

    /// Creates a downloader; its HTTP client is created on the first request.
    public convenience init(config: DownloaderConfig = .default) {
        self.init(config: config, isShared: false)
    }

    private init(config: DownloaderConfig, isShared: Bool) {
        self.config = config
        self.isShared = isShared
        clients = DownloadClients(config: config)
        callbackQueue = config.callbackQueue ?? DispatchQueue(label: "WebImage.ImageDownloader.callbacks")
    }

    deinit {
        // As with AsyncHTTPClient's client, dropping a downloader that made connections
        // without shutdown() is a bug: debug builds stop here to say so; release builds
        // close the clients in the background.
        assert(isShared || state.withLock { !$0.hasStarted || $0.isShutDown },
               "ImageDownloader released without shutdown(): call `await downloader.shutdown()` or use withDownloader")
        clients.shutdownDetached()
    }

    /// Runs `body` with a new downloader and shuts it down afterwards, also when `body` throws.
    public static func withDownloader<T>(
        config: DownloaderConfig = .default,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ImageDownloader) async throws -> T
    ) async rethrows -> T {
        let downloader = ImageDownloader(config: config)
        do {
            let result = try await body(downloader)
            await downloader.shutdown()
            return result
        } catch {
            await downloader.shutdown()
            throw error
        }
    }

    // MARK: Status and control

    /// Transfers queued or running (a URL with several callers counts once).
    public var currentDownloadCount: Int { state.withLock { $0.transfers.count } }

    /// While `true`, queued transfers do not start; running ones continue. Default `false`.
    public var isSuspended: Bool {
        get { state.withLock { $0.isSuspended } }
        set {
            state.withLock { s in
                s.isSuspended = newValue
                startQueued(&s)
            }
        }
    }

    /// A stream of ``DownloadEvent``s from now on; each call gives a new stream, which
    /// keeps the newest 1024 events when its reader falls behind. The streams end at
    /// ``shutdown()``.
    public func events() -> AsyncStream<DownloadEvent> { broadcaster.subscribe() }

    /// Cancels every queued and running transfer; each caller gets
    /// ``WebImageError/Code/cancelled``.
    public func cancelAllDownloads() {
        let transfers = state.withLock { s -> [DownloadTransfer] in
            _ = s.queue.removeAll()
            defer { s.transfers = [:] }
            return Array(s.transfers.values)
        }
        for transfer in transfers { transfer.cancelAll().task?.cancel() }
    }

    /// Cancels everything, waits for the transfers to end and closes the HTTP clients.
    /// Later requests fail with ``WebImageError/Code/invalidDownloadOperation``. Calling
    /// it again does nothing; on ``shared`` it does nothing.
    public func shutdown() async {
        guard !isShared else { return }
        let wasShutDown = state.withLock { s in
            defer { s.isShutDown = true }
            return s.isShutDown
        }
        guard !wasShutDown else { return }
        cancelAllDownloads()
        for task in state.withLock({ Array($0.tasks.values) }) { await task.value }
        await clients.shutdown()
        broadcaster.finish()
    }

    // MARK: ImageLoader

    /// `true` for http and https URLs with a host.
    public func canRequestImage(for url: URL?) -> Bool {
        guard let url, let scheme = url.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && !(url.host ?? "").isEmpty
    }

    /// Queues a download of `url`, or joins the one already queued or running.
    ///
    /// Fails with ``WebImageError/Code/invalidURL`` for a URL that is not http(s), and
    /// with ``WebImageError/Code/invalidDownloadOperation`` after ``shutdown()``.
    public func requestImage(
        with url: URL?,
        options: DownloaderOptions,
        context: ImageLoaderContext,
        progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> ImageLoadToken {
        enqueue(url, options: options, context: context, progress: progress, inline: false, completed: completed)
    }

    /// Loads `url` and returns the final response; partial images are not reported.
    ///
    /// The same as ``ImageLoader/loadImage(with:options:context:progress:)``, but the
    /// result resumes the calling task straight from the transfer's task rather than
    /// through a callback queue (one thread hop less per load). `progress` still runs on
    /// the context's callback queue. Cancelling the calling task cancels this caller's load.
    public func loadImage(
        with url: URL?,
        options: DownloaderOptions = [],
        context: ImageLoaderContext = ImageLoaderContext(),
        progress: ImageLoaderProgress? = nil
    ) async throws(WebImageError) -> ImageLoadResponse {
        try await Self.finalResponse { completed in
            enqueue(url, options: options, context: context, progress: progress, inline: true, completed: completed)
        }
    }

    private func enqueue(
        _ url: URL?, options: DownloaderOptions, context: ImageLoaderContext, progress: ImageLoaderProgress?,
        inline: Bool, completed: @escaping ImageLoaderCompletion
    ) -> ImageLoadToken {
        let queue = context.callbackQueue ?? callbackQueue
        guard let url, canRequestImage(for: url) else {
            let error = WebImageError(.invalidURL, "Not an http(s) URL: \(url?.redactedForLog ?? "nil")")
            queue.async { completed(.failure(error)) }
            return ImageLoadToken(url: url)
        }
        let decodeKey: DownloadCaller.DecodeKey = options.contains(.avoidDecodeImage)
            ? .dataOnly
            : .decode(context.effectiveDecodeOptions(options), lazy: options.contains(.lazyAnimatedImage))
        let request: ImageDownloadRequest
        do {
            request = try makeRequest(url: url, options: options, context: context)
        } catch {
            queue.async { completed(.failure(error)) }
            return ImageLoadToken(url: url)
        }
        let key = Self.coalescingKey(for: request, options: options)
        let joined = state.withLock { s -> (transfer: DownloadTransfer, callerID: UInt64)? in
            guard !s.isShutDown else { return nil }
            s.nextID += 1
            var caller = DownloadCaller(
                id: s.nextID, options: options, priority: options.priority, decodeKey: decodeKey, coder: context.coders ?? config.coders,
                queue: queue, progress: progress, completed: completed)
            caller.deliversInline = inline
            if let existing = s.transfers[key], existing.add(caller) {
                s.queue.setPriority(existing.id, to: existing.priority)
                return (existing, caller.id)
            }
            s.nextID += 1
            let transfer = DownloadTransfer(
                id: s.nextID, url: url, key: key, request: request, options: options, context: context)
            _ = transfer.add(caller)
            s.transfers[transfer.key] = transfer
            s.queue.insert(transfer, priority: options.priority)
            startQueued(&s)
            return (transfer, caller.id)
        }
        guard let joined else {
            let error = WebImageError(.invalidDownloadOperation, "The downloader was shut down")
            queue.async { completed(.failure(error)) }
            return ImageLoadToken(url: url)
        }
        let (transfer, callerID) = joined
        return ImageLoadToken(
            url: url, priority: options.priority,
            cancel: { [weak self] in self?.cancel(caller: callerID, in: transfer) },
            setPriority: { [weak self] priority in self?.setPriority(priority, caller: callerID, in: transfer) })
    }

    // MARK: Internals

    /// Starts queued transfers while slots are free. Called with the lock held.
    func startQueued(_ s: inout State) {
        while !s.isSuspended, s.running < config.maxConcurrentDownloads,
              let transfer = s.queue.popNext(order: config.executionOrder) {
            guard transfer.markRunning() else { continue }
            s.hasStarted = true
            let task = Task { await self.run(transfer) }
            if !transfer.setTask(task) { task.cancel() }
            s.running += 1
            s.tasks[transfer.id] = task
        }
        WebImageMetrics.downloadsInFlight.record(s.running)
        WebImageMetrics.downloadQueueLength.record(s.queue.count)
    }

    /// One caller's token was cancelled.
    func cancel(caller id: UInt64, in transfer: DownloadTransfer) {
        let result = transfer.cancel(callerID: id)
        guard result.abandoned else { return }
        state.withLock { s in
            if s.transfers[transfer.key] === transfer { s.transfers[transfer.key] = nil }
            if result.wasQueued { s.queue.remove(transfer.id) }
        }
        result.task?.cancel()
    }

    /// One caller's token changed its priority: a queued transfer moves in the queue.
    /// A running transfer keeps running; the new priority counts when it decodes.
    func setPriority(_ priority: ImageLoadPriority, caller id: UInt64, in transfer: DownloadTransfer) {
        state.withLock { s in
            guard let transferPriority = transfer.setPriority(priority, callerID: id) else { return }
            s.queue.setPriority(transfer.id, to: transferPriority)
        }
    }

    func emit(_ event: DownloadEvent) {
        broadcaster.yield(event)
        var userInfo: [AnyHashable: Any] = ["url": event.url]
        if case .receivedResponse(_, let status) = event { userInfo["statusCode"] = status }
        NotificationCenter.default.post(name: event.notificationName, object: self, userInfo: userInfo)
    }
}
