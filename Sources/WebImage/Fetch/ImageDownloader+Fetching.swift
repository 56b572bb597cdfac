import Foundation

/// The downloader as the pipeline's fetcher: the body, undecoded, with its transfer's
/// redirects, retries, hop policy, queue and priority.
extension ImageDownloader: ImageFetching, ImageFetchingLoader {
    package func fetch(_ url: URL, validators: HTTPValidators?) async throws(WebImageError) -> FetchOutcome {
        do {
            return try await fetch(url, validators: validators, options: [])
        } catch {
            guard let status = Self.refusedStatus(error) else { throw error }
            return status
        }
    }

    /// A status the config does not accept, as the answer it is, for a stage to judge
    /// (``FetchOutcome/status(_:)``, with its headers); `nil` for any other error.
    static func refusedStatus(_ error: WebImageError) -> FetchOutcome? {
        guard error.code == .invalidDownloadStatusCode, let http = (error.underlyingError as? ResponseCause)?.http else { return nil }
        return .status(http)
    }

    /// ``fetch(_:validators:)`` with loader options (``WebImageOptions/allowInvalidSSLCertificates``,
    /// a priority). Runs on the calling task only to join the transfer (see
    /// ``loadImage(with:options:context:observer:)``).
    ///
    /// A 304, an empty body and a status ``DownloaderConfig/acceptableStatusCodes`` lets
    /// through are outcomes, not errors; a status other than 2xx is ``FetchOutcome/status(_:)``.
    package func fetch(
        _ url: URL, validators: HTTPValidators?, options: WebImageOptions
    ) async throws(WebImageError) -> FetchOutcome {
        var options = options
        var context = WebImageContext()
        if let validators, validators.canValidate {
            options.insert(.useHTTPCache)
            context.validators = validators
        }
        let outcome = try await fetch(url, options: options, context: context, observer: ImageLoadObserver())
        // A stage or a bulk job judges a status itself (a 429's Retry-After): non-2xx is handed over.
        if case .body(_, let http?) = outcome, !(200..<300).contains(http.statusCode) { return .status(http) }
        return outcome
    }

    /// The body of `url` as a load with `options` and `context` requests it (the request
    /// modifier, cookies, validators, TLS), heard and steered through `observer`: progress,
    /// the bytes so far (``ImageLoadObserver/bodySoFar``), the token's priority and
    /// cancellation. Nothing is decoded; the decode options in `options` and `context` are
    /// not read. It joins a transfer of the same request as ``loadImage(with:options:context:observer:)``
    /// does and runs where it runs. Every status ``DownloaderConfig/acceptableStatusCodes``
    /// lets through counts as success, as it says: its body is a ``FetchOutcome/body(_:http:)``.
    package func fetch(
        _ url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver
    ) async throws(WebImageError) -> FetchOutcome {
        let response = try await fetchBody(url, options: options, context: context, observer: observer)
        if response.isNotModified, let http = response.http { return .notModified(http) }
        return Self.outcome(response.data ?? Data(), http: response.http)
    }

    /// Fetch + stage B: the body of `url` (``fetch(_:options:context:observer:)``), decoded
    /// by ``ImageStage`` on ``DownloaderConfig/decodeQueue`` unless the options say
    /// ``WebImageOptions/avoidDecodeImage``; partial images go to `partial`, made from the
    /// bytes so far by stage B's incremental decoder, none after the final image. Callers
    /// of one body with this downloader's coders and the same decode options share one
    /// decode. A 304 (its headers in the error's ``ResponseCause``), an empty body and a
    /// status other than an accepted one are errors.
    ///
    /// While it decodes, the load holds the body (``BodyLease``), so a request for the same
    /// URL meanwhile joins the finished transfer instead of fetching again.
    package func loadDecoded(
        _ url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver,
        partial: (@Sendable (DecodedImage) -> Void)?
    ) async throws(WebImageError) -> ImageLoadResponse {
        try await loadDecoded(url, options: options, context: context, observer: observer, partial: partial) {
            observer throws(WebImageError) in try await fetch(url, options: options, context: context, observer: observer)
        }
    }

    /// ``loadDecoded(_:options:context:observer:partial:)`` whose body comes from `fetch`,
    /// given the load's observer with the body lease (and the bytes-so-far reader for
    /// partial images) set: the library's pipeline fetches through stage A, for the stage's
    /// rules, and decodes here.
    package func loadDecoded(
        _ url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver,
        partial: (@Sendable (DecodedImage) -> Void)?,
        fetch: (ImageLoadObserver) async throws(WebImageError) -> FetchOutcome
    ) async throws(WebImageError) -> ImageLoadResponse {
        let stage = stage(options: options, context: context)
        let lease = BodyLease()
        defer { lease.release() }
        var observer = observer
        observer.bodyLease = lease
        let outcome: FetchOutcome
        if let partial {
            outcome = try await Self.fetch(observer, showing: partial, from: stage, fetch: fetch)
        } else {
            outcome = try await fetch(observer)
        }
        let (data, http) = try Self.body(of: outcome, from: url)
        // A coder of the load's own decodes alone: the key cannot tell two coders apart.
        let shared = context.imageCoder == nil ? url : nil
        let image = options.contains(.avoidDecodeImage) ? nil : try await stage.image(from: data, sharedFrom: shared, in: sharedDecodes)
        return ImageLoadResponse(url: url, image: image, data: data, isFinished: true, http: http, attempts: http?.attempts ?? 1)
    }

    /// The body to decode, or the error a load that hands over only images gives for what
    /// came instead (a 304, another status, an empty body).
    // Out of line, as the pipeline's steps are (ImagePipeline, "The load"): its
    // temporaries stay off the frame a load keeps while it waits.
    @inline(never)
    private static func body(of outcome: FetchOutcome, from url: URL) throws(WebImageError) -> (Data, HTTPResponseInfo?) {
        switch outcome {
        case .notModified(let http):
            throw notModified(url, http: http)
        case .status(let http):
            throw WebImageError(.invalidDownloadStatusCode, "HTTP \(http.statusCode)", httpStatusCode: http.statusCode)
        case .body(let original, let http):
            guard !original.data.isEmpty else { throw emptyBody(url, http: http) }
            return (original.data, http)
        }
    }

    /// `fetch`'s outcome while stage B's incremental decoder shows what has arrived so far,
    /// in a child task.
    // Out of line, so a load without partial images (most) waits for its transfer without
    // room for a task group in its frame.
    @inline(never)
    private static func fetch(
        _ observer: ImageLoadObserver, showing partial: @escaping @Sendable (DecodedImage) -> Void, from stage: ImageStage,
        fetch: (ImageLoadObserver) async throws(WebImageError) -> FetchOutcome
    ) async throws(WebImageError) -> FetchOutcome {
        var observer = observer
        let body = BodyProgress()
        observer.bodySoFar = { data in body.offer(data) }
        let fetched = await withTaskGroup(of: Void.self) { group in
            group.addTask { await stage.partialImages(of: body, partial) }
            let fetched = await Result { () async throws(WebImageError) -> FetchOutcome in try await fetch(observer) }
            // No partial image after the final one: the reader stops before the final decode.
            body.finish()
            group.cancelAll()
            return fetched
        }
        return try fetched.get()
    }

    /// Stage B as a load with `options` and `context` asks for it: this downloader's decode
    /// queue, the load's coder (else this downloader's), its decode options and laziness.
    func stage(options: WebImageOptions, context: WebImageContext) -> ImageStage {
        ImageStage(
            decodeQueue: config.decodeQueue, coder: context.imageCoder ?? config.coders,
            options: context.loaderDecodeOptions(options), lazy: options.contains(.lazyAnimatedImage))
    }

    /// The error of a 304 for the forms that hand over only images: the load did not ask for
    /// one, or cannot use it. The response rides along as the underlying error.
    static func notModified(_ url: URL, http: HTTPResponseInfo?) -> WebImageError {
        WebImageError(.cacheNotModified, "Not modified: \(url.redactedForLog)", httpStatusCode: 304,
                      underlying: http.map(ResponseCause.init(http:)))
    }

    /// The error of a body that is empty, for the forms that decode or hand over only images.
    static func emptyBody(_ url: URL, http: HTTPResponseInfo?) -> WebImageError {
        let message = "The response from \((http?.url ?? url).redactedForLog) has an empty body"
        guard let http else { return .badImageData(message) }
        return WebImageError(.badImageData, message, httpStatusCode: http.statusCode)
    }

    /// A fetched body as the callback form's callers receive it: a 304 is
    /// ``WebImageCodecs/WebImageError/Code/cacheNotModified`` and an empty body
    /// ``WebImageCodecs/WebImageError/Code/badImageData``, as from ``loadImage(with:options:context:observer:)``.
    static func finalResult(_ result: Result<ImageLoadResponse, WebImageError>) -> Result<ImageLoadResponse, WebImageError> {
        guard case .success(let response) = result else { return result }
        if response.isNotModified, let http = response.http { return .failure(notModified(response.url, http: http)) }
        guard let data = response.data, !data.isEmpty else { return .failure(emptyBody(response.url, http: response.http)) }
        return result
    }

    /// Itself, for the http and https URLs it loads.
    package func fetcher(for url: URL) -> ImageDownloader? {
        canRequestImage(for: url) ? self : nil
    }

    private static func outcome(_ data: Data, http: HTTPResponseInfo?) -> FetchOutcome {
        guard let http else { return .body(OriginalData(data: data), http: nil) }
        return .body(OriginalData(data: data, http: http), http: http)
    }
}
