import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// One transfer shared by every caller of one request: its attempts, their redirect
/// hops and the retries between them, driven by callbacks on AsyncHTTPClient's event
/// loops rather than by a task of its own.
///
/// A hop is one `HTTPClient.execute` with a ``TransferDelegate`` that reads the body on the
/// event loop; when the hop's future completes (on that loop), the transfer follows a
/// redirect, schedules a retry on the loop's timer, or reports the body to the
/// downloader, which hands every caller the body (each decodes it in stage B). So a
/// transfer costs no hop to the cooperative pool until its callers resume.
///
/// The ``DownloaderConfig/hopPolicy`` check of the first hop ran on the caller's task when
/// an `async` caller started the transfer (``checkedFirstHop``); every other hop is checked
/// on the thread it is on when that needs no lookup (an address literal, a host allowed by
/// name, a name the resolver has an answer for at hand). What is left runs its check in a
/// task: a redirect or retry hop to a name the resolver must look up, a hop refused (so the
/// refusal ends the transfer off the stack that asked), and the first hop of a transfer
/// started by the callback form, whose caller has no task.
///
/// The network outcome is reported to the downloader exactly once
/// (``ImageDownloader/fetchEnded(_:_:)``), also after ``cancel()``.
final class DownloadTransfer: Sendable {
    let id: UInt64
    let url: URL
    /// The coalescing key (``ImageDownloader/coalescingKey(for:options:)``).
    let key: String
    /// The request every attempt sends (before any `Range` header).
    let request: ImageDownloadRequest
    /// The network options and context of the caller that started the transfer.
    let options: WebImageOptions
    let context: WebImageContext
    /// The first hop's policy check, made on the caller's task
    /// (``ImageDownloader/checkFirstHop(_:)``); `nil` when the transfer checks it itself.
    let checkedFirstHop: CheckedHop?
    private let downloader: ImageDownloader

    /// What is in flight, so ``cancel()`` can stop it.
    private enum Work {
        case idle
        case hop(HTTPClient.Task<TransferDelegate.Outcome>)
        case retry(Scheduled<Void>)
        case policyCheck(Task<Void, Never>)
    }
    private struct State {
        var work = Work.idle
        var isCancelled = false
        var isEnded = false
        var attempt = 0
        var resume: PartialBody?
        var startedAt = ContinuousClock.now
        var firstStartedAt = ContinuousClock.now
    }
    private let state = Mutex(State())
    /// Whether a caller of this transfer observes progress or partial images; set under
    /// the downloader's lock when one joins, read without it per body chunk, so a transfer
    /// nobody watches does not take the downloader's lock for every chunk.
    private let watched = Atomic<Bool>(false)

    /// Whether a caller observes progress or partial images (see ``markWatched()``).
    var isWatched: Bool { watched.load(ordering: .relaxed) }

    /// A caller that observes progress or partial images joined.
    func markWatched() { watched.store(true, ordering: .relaxed) }

    init(id: UInt64, url: URL, key: String, request: ImageDownloadRequest, options: WebImageOptions,
         context: WebImageContext, checkedFirstHop: CheckedHop? = nil, downloader: ImageDownloader) {
        self.id = id
        self.url = url
        self.key = key
        self.request = request
        self.options = options
        self.context = context
        self.checkedFirstHop = checkedFirstHop
        self.downloader = downloader
    }

    private var config: DownloaderConfig { downloader.config }

    // MARK: Lifecycle

    /// Starts the first attempt. Runs on whichever thread freed the slot (a caller's
    /// task or an event loop); returns at once.
    func start() {
        let now = ContinuousClock.now
        let cancelled = state.withLock { s -> Bool in
            s.firstStartedAt = now
            return s.isCancelled
        }
        guard !cancelled else {
            end(.failure(.cancelled()))
            return
        }
        downloader.emit(.started(url))
        beginAttempt()
    }

    /// Stops the transfer; the downloader hears `cancelled` once.
    func cancel() {
        let work = state.withLock { s -> Work in
            s.isCancelled = true
            defer { s.work = .idle }
            return s.work
        }
        switch work {
        case .hop(let task): task.cancel()
        case .retry(let scheduled): scheduled.cancel()
        case .policyCheck(let task): task.cancel()
        case .idle: break
        }
        end(.failure(.cancelled()))
    }

    /// Reports the network outcome to the downloader, once.
    private func end(_ outcome: Result<ImageLoadResponse, WebImageError>) {
        let (first, start) = state.withLock { s -> (Bool, ContinuousClock.Instant) in
            defer { s.isEnded = true }
            return (!s.isEnded, s.firstStartedAt)
        }
        guard first else { return }
        WebImageMetrics.record(WebImageMetrics.downloadDuration, since: start)
        downloader.fetchEnded(self, outcome)
    }

    /// Records `work` as in flight; `false` (and the caller undoes it) once cancelled.
    private func track(_ work: Work) -> Bool {
        state.withLock { s in
            guard !s.isCancelled else { return false }
            s.work = work
            return true
        }
    }

    // MARK: Attempts

    private func beginAttempt() {
        let (attempt, resume) = state.withLock { s -> (Int, PartialBody?) in
            s.attempt += 1
            if s.attempt == 1 { s.startedAt = .now }
            return (s.attempt, s.resume)
        }
        var request = self.request
        if let resume {
            request.headers["Range"] = "bytes=\(resume.data.count)-"
            request.headers["If-Range"] = resume.validator
        }
        let notes = TransferAttempt(resume: resume)
        // One deadline for every hop: redirects do not extend the attempt's time.
        let deadline = NIODeadline.now() + .nanoseconds(DownloadClients.nanoseconds(config.downloadTimeout))
        // A retry checks its first hop anew, as every hop is checked when it is sent (a
        // lookup may answer differently now; a caching resolver answers at once).
        let checked = attempt == 1 ? checkedFirstHop : nil
        hop(request, trail: RedirectTrail(start: request.url), deadline: deadline, notes: notes, checked: checked)
    }

    /// Sends one hop of an attempt, after the hop policy passed its URL (`checked`: it
    /// passed on the caller's task).
    private func hop(
        _ request: ImageDownloadRequest, trail: RedirectTrail, deadline: NIODeadline, notes: TransferAttempt,
        checked: CheckedHop? = nil
    ) {
        let insecure = options.contains(.allowInvalidSSLCertificates)
        // Most hops are allowed on this thread (checked already, no policy, an address
        // literal, a host allowed by name, a name the resolver has at hand). A hop whose host
        // must be resolved waits in a task; so does a refusal, which then ends the transfer
        // off this stack (a line of refused transfers ending one another in turn would
        // otherwise nest).
        var refusal: WebImageError?
        switch downloader.immediateClientLease(for: request.url, insecure: insecure, checked: checked) {
        case .success(let lease)?:
            execute(request, lease: lease, trail: trail, deadline: deadline, notes: notes)
            return
        case .failure(let error)?:
            refusal = error
        case nil:
            break
        }
        // The address check comes before any connection, on every hop; it may resolve the host.
        downloader.policyCheckTaskCount.add(1, ordering: .relaxed)
        let check = Task { [refusal] in
            do throws(WebImageError) {
                // A refusal decided above is neither decided nor counted in the metrics again.
                if let refusal { throw refusal }
                let lease = try await downloader.clientLease(for: request.url, insecure: insecure)
                execute(request, lease: lease, trail: trail, deadline: deadline, notes: notes)
            } catch {
                attemptEnded(.failure(error), notes: notes)
            }
        }
        if !track(.policyCheck(check)) { check.cancel() }
    }

    private func execute(
        _ request: ImageDownloadRequest, lease: ClientLease, trail: RedirectTrail, deadline: NIODeadline, notes: TransferAttempt
    ) {
        let httpRequest: HTTPClient.Request
        do {
            var headers = HTTPHeaders()
            for field in request.headers { headers.add(name: field.name, value: field.value) }
            httpRequest = try HTTPClient.Request(url: request.url.absoluteString, method: .GET, headers: headers)
        } catch {
            lease.release()
            attemptEnded(.failure(DownloadErrorMapping.map(error, url: request.url, phase: .connecting)), notes: notes)
            return
        }
        let delegate = TransferDelegate(transfer: self, downloader: downloader, url: request.url, notes: notes, deadline: deadline)
        let task = lease.client.execute(request: httpRequest, delegate: delegate, deadline: deadline)
        if !track(.hop(task)) { task.cancel() }
        task.futureResult.whenComplete { [self] result in
            lease.release()
            switch result {
            case .success(.redirect(let location, let status)):
                follow(location, status: status, from: request, trail: trail, deadline: deadline, notes: notes)
            case .failure(let abandoned as TransferDelegate.AbandonedRedirect):
                follow(abandoned.location, status: abandoned.status, from: request, trail: trail, deadline: deadline, notes: notes)
            case .success(.body(let data, let info)):
                attemptEnded(.success((data, info)), notes: notes)
            case .failure(let error):
                let phase: DownloadErrorMapping.Phase = notes.lostMidBody ? .body : .connecting
                attemptEnded(.failure(DownloadErrorMapping.map(error, url: url, phase: phase)), notes: notes)
            }
        }
    }

    /// The next hop of a redirect, unless it must not be followed (see
    /// ``ImageDownloader/redirect(from:to:status:trail:handleCookies:)``).
    private func follow(
        _ location: String, status: Int, from request: ImageDownloadRequest, trail: RedirectTrail,
        deadline: NIODeadline, notes: TransferAttempt
    ) {
        do throws(WebImageError) {
            var trail = trail
            let next = try downloader.redirect(
                from: request, to: location, status: status, trail: &trail, handleCookies: options.contains(.handleCookies))
            guard !state.withLock({ $0.isCancelled }) else { return }
            hop(next, trail: trail, deadline: deadline, notes: notes)
        } catch {
            attemptEnded(.failure(error), notes: notes)
        }
    }

    /// Ends an attempt: the body, or a retry when the ``RetryPolicy`` allows one (a body
    /// cut off mid-way resumes from the bytes received), or the failure.
    private func attemptEnded(_ result: Result<(Data, HTTPResponseInfo), WebImageError>, notes: TransferAttempt) {
        let (attempt, cancelled, started) = state.withLock { s in (s.attempt, s.isCancelled, s.startedAt) }
        guard !cancelled else {
            end(.failure(.cancelled()))
            return
        }
        switch result {
        case .success(let (data, info)):
            var http = info
            http.attempts = attempt
            end(.success(ImageLoadResponse(url: url, image: nil, data: data, isFinished: true, http: http, attempts: attempt)))
        case .failure(let error):
            let policy = context.retryPolicy ?? config.retryPolicy
            guard error.code != .cancelled, RetryPolicy.isRetryable(error) || notes.lostMidBody else {
                end(.failure(error))
                return
            }
            guard attempt < policy.maxAttempts else {
                end(.failure(Self.noting(error, attempts: attempt)))
                return
            }
            let delay = policy.delay(beforeRetry: attempt, retryAfter: notes.retryAfter)
            guard started.duration(to: .now) + .seconds(delay) <= .seconds(policy.totalBudget) else {
                end(.failure(Self.noting(error, attempts: attempt, why: "the retry budget of \(policy.totalBudget) s is spent")))
                return
            }
            // A failure before the body began keeps the older resume point.
            state.withLock { s in
                if let partial = notes.partial { s.resume = partial } else if notes.lostMidBody { s.resume = nil }
            }
            ImageDownloader.logger.debug("Retrying \(url.redactedForLog) in \(delay) s after: \(error)")
            WebImageMetrics.downloadRetries.increment()
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            let wait = TimeAmount.nanoseconds(Int64(min(max(delay, 0), 86_400) * 1_000_000_000))
            let retry = loop.scheduleTask(in: wait) { [self] in
                beginAttempt()
            }
            if !track(.retry(retry)) { retry.cancel() }
        }
    }

    /// `error` with the attempt count in its message.
    private static func noting(_ error: WebImageError, attempts: Int, why: String? = nil) -> WebImageError {
        guard attempts > 1 || why != nil else { return error }
        var noted = error
        noted.message += " (after \(attempts) attempt\(attempts == 1 ? "" : "s")\(why.map { "; \($0)" } ?? ""))"
        return noted
    }
}

// MARK: - TransferAttempt

/// The body bytes a failed attempt kept, for the next one to resume with
/// `Range: bytes=N-` and `If-Range`.
struct PartialBody: Sendable {
    /// The bytes received so far.
    var data: Data
    /// The full length the server declared.
    var total: Int
    /// A strong `ETag`, else `Last-Modified`: sent as `If-Range`, so a changed resource
    /// answers 200 with all of itself instead of a range of something else.
    var validator: String
}

extension PartialBody {
    /// The resume point for `data` received of `info`'s body, or `nil` when the response
    /// cannot be resumed: no declared length, no validator (a weak ETag does not count,
    /// RFC 9110 §13.1.5), or nothing received yet.
    static func resumable(_ data: Data, info: HTTPResponseInfo) -> PartialBody? {
        guard !data.isEmpty, info.statusCode == 200, let total = info.expectedContentLength, data.count < total else {
            return nil
        }
        if let etag = info.headers["ETag"], !etag.hasPrefix("W/") {
            return PartialBody(data: data, total: total, validator: etag)
        }
        if let lastModified = info.headers["Last-Modified"] {
            return PartialBody(data: data, total: total, validator: lastModified)
        }
        return nil
    }
}

/// What one attempt of a transfer learned besides its result: when the server asked to
/// come back (`Retry-After`) and the bytes it got before the connection broke. Written by the attempt's task, read by the retry loop
/// after the attempt ended.
final class TransferAttempt: Sendable {
    private struct State {
        var retryAfter: TimeInterval?
        var partial: PartialBody?
        var lostMidBody = false
    }
    private let state = Mutex(State())

    /// The resume data this attempt started from, if any.
    let resume: PartialBody?

    init(resume: PartialBody?) {
        self.resume = resume
    }

    var retryAfter: TimeInterval? { state.withLock { $0.retryAfter } }
    /// What the next attempt can resume from.
    var partial: PartialBody? { state.withLock { $0.partial } }
    /// Whether the connection broke after the body began (a transient failure).
    var lostMidBody: Bool { state.withLock { $0.lostMidBody } }

    func noteRetryAfter(_ seconds: TimeInterval?) { state.withLock { $0.retryAfter = seconds } }

    /// The body broke off after `data`; `resumable` says whether the response allows
    /// resuming (a validator and a declared length).
    func noteLostMidBody(_ partial: PartialBody?) {
        state.withLock { s in
            s.lostMidBody = true
            s.partial = partial
        }
    }
}

// MARK: - RedirectTrail

/// The redirect hops of one transfer: how many were taken and where they went.
struct RedirectTrail {
    /// URLs requested so far (absolute strings), to see a loop before requesting again.
    private(set) var visited: Set<String>
    /// Hops taken so far.
    private(set) var hops = 0

    init(start: URL) {
        visited = [start.absoluteString]
    }

    /// Records a hop to `url`.
    mutating func record(_ url: URL) {
        visited.insert(url.absoluteString)
        hops += 1
    }
}
