import Foundation

// The downloader around one transfer: the request it sends and who may share it, the
// redirects it follows, what its events become, and the callers it answers.

/// The request a transfer sends, and the key that decides which callers may share it.
extension ImageDownloader {
    /// The request to send: default headers, credentials, validators, cookies, then the
    /// request modifier, which may veto it. Runs on the thread that calls
    /// ``loadImage(with:options:context:observer:)`` (or WebImageCompat's
    /// `requestImage(with:options:context:progress:completed:)`), before the request is
    /// queued: what the modifier returns is part of the coalescing key.
    func makeRequest(
        url: URL, options: WebImageOptions, context: WebImageContext
    ) throws(WebImageError) -> ImageDownloadRequest {
        var headers = config.httpHeaders
        if let user = config.username, let password = config.password {
            headers["Authorization"] = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
        if options.isConditional, let validators = context.validators {
            if let etag = validators.etag { headers["If-None-Match"] = etag }
            if let date = validators.lastModified { headers["If-Modified-Since"] = date }
        }
        if options.contains(.handleCookies), let cookie = cookieJar.header(for: url) {
            headers["Cookie"] = cookie
        }
        var request = ImageDownloadRequest(url: url, headers: headers)
        if let modifier = context.downloadRequestModifier ?? config.requestModifier {
            guard let modified = modifier(request) else {
                throw WebImageError(.invalidDownloadOperation, "The request modifier vetoed the request for \(url.redactedForLog)")
            }
            guard canRequestImage(for: modified.url) else {
                throw WebImageError(.invalidURL, "The request modifier produced a URL that is not http(s): \(modified.url.redactedForLog)")
            }
            request = modified
        }
        return request
    }

    /// Which transfers a request may join: equal only when everything that shapes the
    /// request or its response is equal: the method, the URL, every header after the
    /// request modifier (credentials, cookies and validators included, so one user's
    /// private image never reaches another) and the TLS settings. Header order and the
    /// case of names do not matter.
    static func coalescingKey(for request: ImageDownloadRequest, options: WebImageOptions) -> String {
        var key = "GET " + request.url.absoluteString
        var lines: [String] = []
        for field in request.headers {
            let line: String = field.name.lowercased() + ": " + field.value
            lines.append(line)
        }
        lines.sort()
        for line in lines { key += "\n" + line }
        if options.contains(.allowInvalidSSLCertificates) { key += "\n#tls: no verification" }
        return key
    }
}

// MARK: - Redirects

extension ImageDownloader {
    /// The statuses the downloader follows when they carry a `Location`.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The request for the next hop of a redirect from `request` to `location`, or a
    /// ``WebImageCodecs/WebImageError/Code/tooManyRedirects`` error when it must not be followed: past
    /// ``DownloaderConfig/maxRedirects``, back to a URL already requested, to a scheme
    /// other than http(s), or between http and https unless
    /// ``DownloaderConfig/allowsCrossSchemeRedirects``.
    func redirect(
        from request: ImageDownloadRequest, to location: String, status: Int, trail: inout RedirectTrail,
        handleCookies: Bool
    ) throws(WebImageError) -> ImageDownloadRequest {
        func refuse(_ why: String) -> WebImageError {
            WebImageError(
                .tooManyRedirects, "Redirect from \(request.url.redactedForLog) \(why)", httpStatusCode: status)
        }
        guard trail.hops < config.maxRedirects else {
            throw refuse("not followed: more than \(config.maxRedirects) redirects")
        }
        // Relative Locations resolve against the URL that answered (RFC 9110 §10.2.2).
        guard let next = URL(string: location, relativeTo: request.url)?.absoluteURL else {
            throw refuse("to an invalid Location not followed")
        }
        let fromScheme = request.url.scheme?.lowercased()
        let toScheme = next.scheme?.lowercased()
        guard toScheme == "http" || toScheme == "https", canRequestImage(for: next) else {
            throw refuse("to \(toScheme ?? "a relative") URL not followed: only http(s) redirects are")
        }
        guard toScheme == fromScheme || config.allowsCrossSchemeRedirects else {
            throw refuse("to \(next.redactedForLog) not followed: it changes the scheme (allowsCrossSchemeRedirects is off)")
        }
        guard !trail.visited.contains(next.absoluteString) else {
            throw refuse("to \(next.redactedForLog) not followed: a redirect loop")
        }
        trail.record(next)

        var headers = request.headers
        // Credentials were meant for the origin they were configured for: a redirect must
        // not hand them to another host, port or scheme (a hostile or compromised server
        // could otherwise harvest them, or they would cross to plain http).
        if !Self.sameOrigin(request.url, next) {
            headers.remove("Authorization")
            headers.remove("Proxy-Authorization")
        }
        // Cookies belong to the URL they are sent to: ask the jar again for the new one.
        headers.remove("Cookie")
        if handleCookies, let cookie = cookieJar.header(for: next) { headers["Cookie"] = cookie }
        return ImageDownloadRequest(url: next, headers: headers)
    }

    /// Whether `a` and `b` have the same scheme, host and (effective) port.
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }
        return a.scheme?.lowercased() == b.scheme?.lowercased()
            && a.host?.lowercased() == b.host?.lowercased()
            && port(a) == port(b)
    }
}

// MARK: - Delivery

/// What a transfer's events become: progress, the bytes so far and the callers' results.
/// Each runs on the thread of the event (an event loop); the scheduler decides under the
/// lock, and observers and continuations run after it is released.
extension ImageDownloader {
    /// Checks status, content type and declared length before the body is read. A 304
    /// passes: it is an answer (``FetchOutcome/notModified(_:)``), not a failure.
    func check(_ info: HTTPResponseInfo) throws(WebImageError) {
        let status = info.statusCode
        if status == 304 { return }
        guard config.acceptableStatusCodes.contains(status) else {
            throw WebImageError(.invalidDownloadStatusCode, "HTTP \(status)", httpStatusCode: status,
                                underlying: ResponseCause(http: info))
        }
        // The media type is parsed only when the config restricts it.
        guard config.acceptableContentTypes == nil || config.accepts(mimeType: info.mimeType) else {
            throw WebImageError(
                .invalidDownloadContentType, "Content-Type \(info.mimeType ?? "(none)") is not acceptable",
                httpStatusCode: status)
        }
        if let length = info.expectedContentLength, length > config.maxResponseBytes {
            throw WebImageError(
                .responseTooLarge, "The response declares \(length) bytes; the limit is \(config.maxResponseBytes)")
        }
    }

    /// Reports `received` bytes to the callers that asked for progress; at most once per
    /// ``DownloaderConfig/minimumProgressInterval`` unless `force`.
    func reportProgress(of transfer: DownloadTransfer, received: Int, expected: Int, force: Bool) {
        guard transfer.isWatched else { return }
        let observers = scheduler.withLock {
            $0.progress(of: transfer.id, received: received, interval: config.minimumProgressInterval, force: force, now: .now)
        }
        for progress in observers { progress(received, expected) }
    }

    /// A body chunk arrived (on the event loop): progress, and the bytes so far to the
    /// callers that read them (stage B's partial images).
    func chunkArrived(of transfer: DownloadTransfer, received: Int, expected: Int, data: Data) {
        guard transfer.isWatched else { return }
        let (observers, readers) = scheduler.withLock { s in
            (s.progress(of: transfer.id, received: received, interval: config.minimumProgressInterval, force: false, now: .now),
             s.bodyReaders(of: transfer.id))
        }
        for progress in observers { progress(received, expected) }
        for read in readers { read(data) }
    }

    /// A transfer's network part ended: frees its slot, starts queued transfers, emits
    /// its last events, then answers the callers. A 304 and an empty body are answers
    /// too: each caller judges them (``FetchOutcome``, ``ImageDownloader/finalResult(_:)``).
    func fetchEnded(_ transfer: DownloadTransfer, _ outcome: Result<ImageLoadResponse, WebImageError>) {
        let (end, counts) = scheduler.withLock { ($0.fetchEnded(transfer.id, outcome), ($0.running, $0.queuedCount)) }
        Self.record(running: counts.0, queued: counts.1)
        for next in end.start { next.start() }
        // Events first, so a caller that reacts to its result sees this transfer's events
        // before those of a transfer it starts.
        // `finished` means an image body arrived, as before 304s and empty bodies were answers.
        if case .success(let body) = outcome, !body.isNotModified, body.data?.isEmpty == false {
            emit(.finished(transfer.url))
        }
        emit(.stopped(transfer.url))
        for lease in end.leases { lease.attach { [weak self] in self?.releaseBody(of: transfer.id) } }
        end.deliveries.perform()
    }
}

// MARK: - ImageDownloadRequest

/// The request the downloader is about to send, as a request modifier sees it.
///
/// Headers already hold the configured defaults, Basic credentials, validators and
/// cookies; a modifier may change the URL or headers, or return `nil` to veto it.
public struct ImageDownloadRequest: Sendable, Hashable {
    /// The URL to fetch (http or https).
    public var url: URL
    /// The request headers.
    public var headers: HTTPHeaderFields

    /// Creates a request for `url` with `headers`.
    public init(url: URL, headers: HTTPHeaderFields = [:]) {
        self.url = url
        self.headers = headers
    }
}

/// Changes a request before it is sent, or vetoes it by returning `nil` (that request
/// fails with ``WebImageCodecs/WebImageError/Code/invalidDownloadOperation``). Runs on the thread that calls
/// ``ImageLoader/loadImage(with:options:context:observer:)`` (or the callback form), before
/// the request joins a transfer.
public typealias ImageDownloadRequestModifier = @Sendable (ImageDownloadRequest) -> ImageDownloadRequest?

/// Changes a response's status or headers before they are checked, or rejects it by
/// returning `nil` (the load fails with ``WebImageCodecs/WebImageError/Code/invalidDownloadResponse``).
/// Runs on the transfer's event loop when the response head arrives, so it must return
/// at once (no I/O, no locks held long).
public typealias ImageDownloadResponseModifier = @Sendable (HTTPResponseInfo) -> HTTPResponseInfo?

// MARK: - DownloadCaller

/// One caller of a transfer: what it asked for, what it listens with, and the
/// continuation its task waits on.
struct DownloadCaller: Sendable {
    let id: UInt64
    /// Starts as the options say; ``ImageLoadToken/priority`` changes it.
    var priority: ImageLoadPriority
    let observer: ImageLoadObserver
    /// Called exactly once, with the final result; the scheduler removes the caller when
    /// it hands the completion out, so no other path can call it again.
    let completion: Completion

    /// Where a caller's final result goes.
    enum Completion: Sendable {
        /// The `async` form: the caller's task resumes (on the cooperative pool).
        case resume(CheckedContinuation<Result<ImageLoadResponse, WebImageError>, Never>)
        /// The callback form: a closure that only queues the caller's callback.
        case call(@Sendable (Result<ImageLoadResponse, WebImageError>) -> Void)
    }

    /// Whether the body's chunks matter to this caller: it observes progress or reads the
    /// bytes so far (stage B's partial images).
    var watchesBody: Bool { observer.progress != nil || observer.bodySoFar != nil }
}

/// A final result for one caller, to hand over once the downloader's lock is released.
struct DownloadDelivery: Sendable {
    let completion: DownloadCaller.Completion
    let result: Result<ImageLoadResponse, WebImageError>

    init(_ caller: DownloadCaller, _ result: Result<ImageLoadResponse, WebImageError>) {
        completion = caller.completion
        self.result = result
    }

    func perform() {
        switch completion {
        case .resume(let continuation): continuation.resume(returning: result)
        case .call(let completed): completed(result)
        }
    }
}

extension [DownloadDelivery] {
    func perform() {
        for delivery in self { delivery.perform() }
    }
}
