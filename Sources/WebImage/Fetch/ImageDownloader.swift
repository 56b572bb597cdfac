import Foundation
import Logging
import Synchronization

/// Downloads images over http and https with AsyncHTTPClient, decodes them off the
/// network threads (stage B, `ImageStage`), and shares one transfer among every caller
/// of a URL (SDWebImage's `SDWebImageDownloader`).
///
/// ```swift
/// let downloader = ImageDownloader(config: .default)
/// var context = WebImageContext()
/// context.thumbnailPixelSize = PixelSize(width: 200, height: 200)
/// let response = try await downloader.loadImage(with: url, context: context)
/// await downloader.shutdown()
/// ```
///
/// - **Where the work runs**: the calling task only builds the request, checks the first
///   hop of a transfer it starts (a host name to resolve waits on the resolver's pool) and
///   joins or starts the transfer, then suspends. The body is read on AsyncHTTPClient's event loop
///   (no hop per chunk); progress observers are called there. The transfer itself never
///   decodes: each caller's task decodes the body on ``DownloaderConfig/decodeQueue``
///   (partial images too), once per body and decode options among the callers at once,
///   and resumes on the cooperative pool with the result: a hop to the network and back,
///   then to the decode queue and back.
/// - **Coalescing**: a request whose transfer is queued or running joins it when the two
///   requests are the same on the wire: URL, every header after the request modifier
///   (credentials, cookies, validators) and TLS settings; otherwise it gets its own
///   transfer. A request after the body arrived starts anew, unless the body is still
///   being decoded for another caller (which holds it until then, an ``ImageManager``'s
///   load too); such a request gets the body at once.
/// - **Security and retries**: ``DownloaderConfig/hopPolicy`` (source allowlist and SSRF
///   guard) checks the first request and every redirect hop; ``DownloaderConfig/retryPolicy``
///   retries transient failures, resuming a body cut off mid-way with a `Range` request.
/// - **Queueing**: at most ``DownloaderConfig/maxConcurrentDownloads`` transfers run; the
///   rest start by priority (changeable while queued, ``ImageLoadToken/priority``), then in
///   ``DownloaderConfig/executionOrder``.
/// - **Callbacks**: none here. WebImageCompat adds SDWebImage's callback form
///   (`requestImage(with:options:context:progress:completed:)`), which queues the request
///   before it returns and delivers on a `DispatchQueue` of its own.
/// - **Lifecycle**: call ``shutdown()`` when done (or use ``withDownloader(config:isolation:_:)``);
///   a downloader that started a transfer and is released without it asserts in debug builds;
///   ``shared`` lives for the whole process and ignores it.
public final class ImageDownloader: ImageLoader {
    /// The shared downloader with the default configuration. It is never shut down.
    public static let shared = ImageDownloader(config: .default, isShared: true)

    /// The configuration this downloader was created with.
    public let config: DownloaderConfig
    let scheduler: Mutex<DownloadScheduler>
    let clients: DownloadClients
    let cookieJar = CookieJar()
    /// Hops whose policy check needed a task of its own (a host name to resolve).
    let policyCheckTaskCount = Atomic<Int>(0)
    private let broadcaster = EventBroadcaster<DownloadEvent>()
    static let logger = Logger(label: "WebImage.ImageDownloader")
    private let isShared: Bool
    /// Stage B's decodes running for this downloader's callers and the managers over it:
    /// one per body and decode options (``ImageStage/image(from:sharing:in:)``).
    let sharedDecodes = ImageStage.SharedDecodes()

    /// Creates a downloader; its HTTP client is created on the first request.
    public convenience init(config: DownloaderConfig = .default) {
        self.init(config: config, isShared: false)
    }

    private init(config: DownloaderConfig, isShared: Bool) {
        self.config = config
        self.isShared = isShared
        clients = DownloadClients(config: config)
        scheduler = Mutex(DownloadScheduler(
            maxConcurrent: config.maxConcurrentDownloads, maxQueued: config.maxQueuedDownloads, order: config.executionOrder))
    }

    deinit {
        // As with AsyncHTTPClient's client, dropping a downloader that made connections
        // without shutdown() is a bug: debug builds stop here to say so; release builds
        // close the clients in the background.
        assert(isShared || scheduler.withLock { !$0.hasStarted || $0.isShutDown },
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

    /// Transfers queued, running, or whose body is still being decoded (here, or by a
    /// caller that holds it to decode it itself); a URL with several callers counts once.
    public var currentDownloadCount: Int { scheduler.withLock { $0.entries.count } }

    /// While `true`, queued transfers do not start; running ones continue. Default `false`.
    public var isSuspended: Bool {
        get { scheduler.withLock { $0.isSuspended } }
        set {
            let start = scheduler.withLock { $0.setSuspended(newValue) }
            for transfer in start { transfer.start() }
        }
    }

    /// A stream of ``DownloadEvent``s from now on; each call gives a new stream, which
    /// keeps the newest 1024 events when its reader falls behind. The streams end at
    /// ``shutdown()``.
    public func events() -> AsyncStream<DownloadEvent> { broadcaster.subscribe() }

    /// Cancels every queued and running transfer; each caller gets
    /// ``WebImageCodecs/WebImageError/Code/cancelled``.
    public func cancelAllDownloads() {
        let (deliveries, transfers) = scheduler.withLock { $0.cancelAll() }
        for transfer in transfers { transfer.cancel() }
        deliveries.perform()
    }

    /// Cancels everything, closes the HTTP clients and ends the event streams. Later
    /// requests fail with ``WebImageCodecs/WebImageError/Code/invalidDownloadOperation``. Calling it again
    /// does nothing; on ``shared`` it does nothing.
    public func shutdown() async {
        guard !isShared, scheduler.withLock({ $0.shutDown() }) else { return }
        cancelAllDownloads()
        await clients.shutdown()
        broadcaster.finish()
    }

    // MARK: ImageLoader

    /// `true` for http and https URLs with a host.
    public func canRequestImage(for url: URL?) -> Bool {
        guard let url, let scheme = url.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && !(url.host ?? "").isEmpty
    }

    /// Downloads `url`, or joins the transfer of the same request already queued, running
    /// or decoding, and returns its final response (decoded unless the options say
    /// ``WebImageOptions/avoidDecodeImage``).
    ///
    /// A request that joins a transfer already running shares that transfer's network
    /// options (priority aside); its own decode options
    /// (``WebImageOptions/scaleDownLargeImages``, ``WebImageOptions/decodeFirstFrameOnly``,
    /// ``WebImageOptions/avoidDecodeImage``, ``WebImageOptions/lazyAnimatedImage``,
    /// ``WebImageOptions/progressiveLoad``) still apply to what it receives. Which requests
    /// may join is decided by the request (its URL and headers, which
    /// ``WebImageOptions/handleCookies`` and the conditional-request options shape) and
    /// ``WebImageOptions/allowInvalidSSLCertificates``; no other option bit splits transfers.
    ///
    /// Runs on the calling task only to build the request (the request modifier runs
    /// here), check its first hop and join the transfer; see the type's discussion for the
    /// rest. Under a ``DownloaderConfig/hopPolicy``, a caller that starts a transfer checks
    /// its first hop on its own task (resolving a host name there, on the resolver's pool),
    /// so the transfer starts that hop on whatever thread starts it, with no task of its
    /// own; a refused first hop throws here, before any transfer exists. A caller joining a
    /// transfer already there checks nothing: the transfer checks its own hops.
    ///
    /// Cancelling the task ends this caller's wait at once, a lookup in progress too as far
    /// as the resolver hears cancellation (``SystemHostResolver`` does); a caller cancelled
    /// during its check gets ``WebImageCodecs/WebImageError/Code/cancelled`` and no
    /// connection is opened for it. Cancelling the observer's token ends the wait at once
    /// while the caller waits on its transfer; during the first hop's lookup, when the
    /// lookup returns; during the decode, when the decode ends (another caller may share
    /// it). The transfer stops when no caller is left.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/invalidURL`` for a URL that is not http(s),
    ///   ``WebImageCodecs/WebImageError/Code/invalidDownloadOperation`` after ``shutdown()``,
    ///   ``WebImageCodecs/WebImageError/Code/cancelled`` when a new transfer would find the
    ///   queue full (``DownloaderConfig/maxQueuedDownloads``), the first hop's refusal
    ///   (``WebImageCodecs/WebImageError/Code/sourceNotAllowed``,
    ///   ``WebImageCodecs/WebImageError/Code/forbiddenAddress``) or failed lookup
    ///   (``WebImageCodecs/WebImageError/Code/cannotFindHost``), and the transfer's error.
    public func loadImage(
        with url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver
    ) async throws(WebImageError) -> ImageLoadResponse {
        var partial: (@Sendable (DecodedImage) -> Void)?
        if options.contains(.progressiveLoad), !options.contains(.avoidDecodeImage), let deliver = observer.partialImage {
            partial = { image in deliver(ImageLoadResponse(url: url, image: image, data: nil, isFinished: false)) }
        }
        let response = try await loadDecoded(url, options: options, context: context, observer: observer, partial: partial)
        // The token ends the wait while the caller waits on its transfer, and also here.
        if observer.token?.isCancelled == true { throw .cancelled() }
        return response
    }

    /// The answer for `url`, undecoded: joins the transfer of the same request (or starts
    /// one) and waits for it. A 304 and an empty body are answers here, not errors; the
    /// ``ImageFetching`` form makes them ``FetchOutcome``s, and
    /// ``loadImage(with:options:context:observer:)`` (this plus stage B) its errors.
    func fetchBody(
        _ url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver
    ) async throws(WebImageError) -> ImageLoadResponse {
        if Task.isCancelled || observer.token?.isCancelled == true { throw .cancelled() }
        var prepared = try prepare(url, options: options, context: context)
        if !config.hopPolicy.isEmpty, !scheduler.withLock({ $0.hasTransfer(forKey: prepared.key) }) {
            prepared.firstHop = try await checkFirstHop(prepared.request.url)
            if Task.isCancelled || observer.token?.isCancelled == true { throw .cancelled() }
        }
        let slot = CancellationSlot()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if let leave = join(prepared, observer: observer, completion: .resume(continuation)) { slot.set(leave) }
            }
        } onCancel: {
            slot.cancel()
        }
        return try result.get()
    }

    // MARK: Joining

    /// A request ready to join a transfer: everything decided on the caller's thread.
    struct Prepared: Sendable {
        let url: URL
        let request: ImageDownloadRequest
        let key: String
        let options: WebImageOptions
        let context: WebImageContext
        /// The first hop's policy check, when the caller made it (``checkFirstHop(_:)``).
        var firstHop: CheckedHop? = nil
    }

    func prepare(_ url: URL, options: WebImageOptions, context: WebImageContext) throws(WebImageError) -> Prepared {
        guard canRequestImage(for: url) else { throw WebImageError(.invalidURL, "Not an http(s) URL: \(url.redactedForLog)") }
        let request = try makeRequest(url: url, options: options, context: context)
        return Prepared(url: url, request: request, key: Self.coalescingKey(for: request, options: options),
                        options: options, context: context)
    }

    /// Prepares `url` and joins its transfer before returning, with `completion` called
    /// exactly once (after stage B's decode on ``DownloaderConfig/decodeQueue``, or at once
    /// on this thread when the request is refused) in place of a resumed task:
    /// WebImageCompat's callback form, which queues the request in the order its callers
    /// asked. A progressive load reads its partial images in a task of its own; no other
    /// load starts one.
    package func join(
        _ url: URL?, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver,
        completion: @escaping @Sendable (Result<ImageLoadResponse, WebImageError>) -> Void
    ) {
        let prepared: Prepared
        do throws(WebImageError) {
            guard let url else { throw WebImageError(.invalidURL, "The image URL is nil") }
            prepared = try prepare(url, options: options, context: context)
        } catch {
            completion(.failure(error))
            return
        }
        guard !options.contains(.avoidDecodeImage) else {
            _ = join(prepared, observer: observer, completion: .call { result in completion(Self.finalResult(result)) })
            return
        }
        let stage = stage(options: options, context: context)
        // The transfer keeps the body for callers that come meanwhile until this decode ended.
        let lease = BodyLease()
        var observer = observer
        observer.bodyLease = lease
        var partials: (body: BodyProgress, reader: Task<Void, Never>)?
        if options.contains(.progressiveLoad), let deliver = observer.partialImage {
            let body = BodyProgress()
            observer.bodySoFar = { data in body.offer(data) }
            let reader = Task {
                await stage.partialImages(of: body) { image in
                    deliver(ImageLoadResponse(url: prepared.url, image: image, data: nil, isFinished: false))
                }
            }
            partials = (body, reader)
        }
        let token = observer.token
        _ = join(prepared, observer: observer, completion: .call { [partials] fetched in
            let result = Self.finalResult(fetched)
            partials?.body.finish()
            partials?.reader.cancel()
            guard case .success(let body) = result, let data = body.data else {
                lease.release()
                completion(result)
                return
            }
            let decode: @Sendable () -> Void = {
                _ = stage.decodeQueue.submit {
                    let decoded = token?.isCancelled == true
                        ? .failure(.cancelled())
                        : DecodeQueue.decodeNow(data, options: stage.options, lazy: stage.lazy, coder: stage.coder)
                    lease.release()
                    completion(decoded.map { image in
                        var final = body
                        final.image = image
                        return final
                    })
                } cancelled: {
                    lease.release()
                    completion(.failure(.cancelled()))
                }
            }
            // No partial image after the final one: the reader ends before the final decode.
            guard let reader = partials?.reader else { return decode() }
            Task {
                await reader.value
                decode()
            }
        })
    }

    /// Adds a caller to the transfer for its request (starting one when needed) and wires
    /// the observer's token to it; returns what makes the caller leave, or `nil` when it
    /// was turned away (after ``shutdown()``, or with the queue full; its completion then
    /// has the error) or already answered (a data-only caller of a transfer whose body is
    /// complete).
    func join(
        _ prepared: Prepared, observer: ImageLoadObserver, completion: DownloadCaller.Completion
    ) -> (@Sendable () -> Void)? {
        let (callerID, join, running, queued) = scheduler.withLock { s in
            let caller = DownloadCaller(
                id: s.makeID(), priority: observer.token?.priority ?? prepared.options.loadPriority, observer: observer,
                completion: completion)
            let join = s.join(caller, key: prepared.key) { id in
                DownloadTransfer(
                    id: id, url: prepared.url, key: prepared.key, request: prepared.request, options: prepared.options,
                    context: prepared.context, checkedFirstHop: prepared.firstHop, downloader: self)
            }
            return (caller.id, join, s.running, s.queuedCount)
        }
        guard case .waiting(let transferID, let start, let delivery, let lease) = join else {
            let refused = DownloadCaller(id: callerID, priority: .normal, observer: observer, completion: completion)
            let error = if case .full(let queued) = join {
                WebImageError.cancelled(
                    "The download queue is full (\(queued) transfers waiting, maxQueuedDownloads); \(prepared.url.redactedForLog) was not started")
            } else {
                WebImageError(.invalidDownloadOperation, "The downloader was shut down")
            }
            DownloadDelivery(refused, .failure(error)).perform()
            return nil
        }
        Self.record(running: running, queued: queued)
        for transfer in start { transfer.start() }
        if let delivery {
            lease?.attach { [weak self] in self?.releaseBody(of: transferID) }
            delivery.perform()
            return nil
        }
        let leave: @Sendable () -> Void = { [weak self] in self?.leave(callerID, of: transferID) }
        observer.token?.onCancel(leave)
        observer.token?.onPriorityChange { [weak self] priority in
            self?.scheduler.withLock { $0.setPriority(priority, caller: callerID, of: transferID) }
        }
        return leave
    }

    // MARK: Internals

    /// One caller left (its task or token was cancelled): it gets `cancelled`, and the
    /// transfer stops when it was the last.
    private func leave(_ callerID: UInt64, of transferID: UInt64) {
        let (caller, abandoned, running, queued) = scheduler.withLock { s in
            let (caller, abandoned) = s.leave(callerID, of: transferID)
            return (caller, abandoned, s.running, s.queuedCount)
        }
        abandoned?.cancel()
        if let caller { DownloadDelivery(caller, .failure(.cancelled())).perform() }
        Self.record(running: running, queued: queued)
    }

    /// A data-only caller's ``BodyLease`` on transfer `transferID`'s body was released.
    func releaseBody(of transferID: UInt64) {
        scheduler.withLock { $0.releaseBody(of: transferID) }
    }

    /// Records the transfer counts read under the lock, after it is released (a metrics
    /// backend is user code).
    static func record(running: Int, queued: Int) {
        WebImageMetrics.downloadsInFlight.record(running)
        WebImageMetrics.downloadQueueLength.record(queued)
    }

    func emit(_ event: DownloadEvent) {
        broadcaster.yield(event)
    }
}

extension ImageDownloader {
    /// How many hops checked their ``HopPolicy`` in a task of their own: only those whose
    /// host must be resolved (tests count the tasks a transfer starts).
    package var policyCheckTasks: Int { policyCheckTaskCount.load(ordering: .relaxed) }
}
