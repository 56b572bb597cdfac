import Foundation

/// The download stage: the request, partial images, failures and the block list.
extension ImageManager {
    /// What a download gave: the final response, or a 304 to a conditional request (with
    /// its headers, which renew the stored freshness).
    enum Downloaded: Sendable {
        case response(ImageLoadResponse)
        case notModified(HTTPResponseInfo?)

        /// The response; a 304 the load did not ask for is
        /// ``WebImageCodecs/WebImageError/Code/cacheNotModified``.
        func response(for url: URL) throws(WebImageError) -> ImageLoadResponse {
            switch self {
            case .response(let response): return response
            case .notModified(let http):
                throw WebImageError(.cacheNotModified, "Not modified: \(url.redactedForLog)", httpStatusCode: 304,
                                    underlying: http.map(NotModifiedResponse.init(http:)))
            }
        }
    }

    /// Downloads the load's URL; with validators that can validate, as a conditional
    /// request that may answer ``Downloaded/notModified(_:)``.
    ///
    /// The load's task steers the download through a token (priority changes, cancel)
    /// and hears its progress; partial images reach it unless this is a revalidation.
    func download(
        _ load: ManagedLoad, validators: HTTPValidators?, isRevalidation: Bool
    ) async throws(WebImageError) -> Downloaded {
        try load.checkCancelled()
        var options = load.options.loaderOptions
        let conditional = validators?.canValidate ?? false
        if conditional { options.insert(.useHTTPCache) }
        let context = load.context.loaderContext(
            options: load.options, originalKey: load.originalKey ?? load.url.absoluteString,
            validators: conditional ? validators : nil)
        let token = ImageLoadToken(url: load.url, priority: load.task.priority)
        load.task.attach(token)
        var observer = ImageLoadObserver(token: token)
        let task = load.task
        if task.reportsProgress {
            observer.progress = { received, expected in task.reportProgress(received: received, expected: expected) }
        }
        var partial: (@Sendable (DecodedImage) -> Void)?
        if load.options.contains(.progressiveLoad), !isRevalidation {
            // Partial images are shown, never stored.
            partial = { image in
                task.finish(load.result(image: image, data: nil, cacheType: .none, isFinished: false), isLast: false)
            }
        }
        let downloaded = try await Self.download(
            load.url, from: load.loader, options: options, context: context, observer: observer, partial: partial,
            decodes: sharedDecodes)
        if load.options.contains(.retryFailed), case .response = downloaded { failedURLs.remove(load.url) }
        return downloaded
    }

    /// One download from `loader`. A loader with a fetcher for the URL
    /// (``ImageFetchingLoader``, the default ``ImageDownloader``) fetches the body, and stage B
    /// (``ImageStage``) decodes it on the fetcher's decode queue, partial images from the
    /// bytes so far; any other loader loads and decodes itself
    /// (``ImageLoader/loadImage(with:options:context:observer:)``), its thrown 304 read as
    /// ``Downloaded/notModified(_:)``. Loads of one body with the fetcher's coders and the
    /// same decode options share one decode in `decodes`.
    static func download(
        _ url: URL, from loader: any ImageLoader, options: WebImageOptions, context: WebImageContext,
        observer: ImageLoadObserver, partial: (@Sendable (DecodedImage) -> Void)?, decodes: ImageStage.SharedDecodes
    ) async throws(WebImageError) -> Downloaded {
        guard let fetcher = (loader as? any ImageFetchingLoader)?.fetcher(for: url) else {
            var observer = observer
            if let partial { observer.partialImage = { response in if let image = response.image { partial(image) } } }
            do throws(WebImageError) {
                return .response(try await loader.loadImage(with: url, options: options, context: context, observer: observer))
            } catch where error.code == .cacheNotModified {
                return .notModified((error.underlyingError as? NotModifiedResponse)?.http)
            }
        }
        let stage = ImageStage(
            decodeQueue: fetcher.config.decodeQueue, coder: context.imageCoder ?? fetcher.config.coders,
            options: context.loaderDecodeOptions(options), lazy: options.contains(.lazyAnimatedImage))
        // The transfer keeps the body for callers that come meanwhile until this decode ended.
        let lease = BodyLease()
        defer { lease.release() }
        var observer = observer
        observer.bodyLease = lease
        let outcome: FetchOutcome
        if let partial {
            let body = BodyProgress()
            observer.bodySoFar = { data in body.offer(data) }
            let fetched = await withTaskGroup(of: Void.self) { group in
                group.addTask { await stage.partialImages(of: body, partial) }
                let fetched = await Result { () async throws(WebImageError) -> FetchOutcome in
                    try await fetcher.fetch(url, options: options, context: context, observer: observer)
                }
                // No partial image after the final one: the reader stops before the final decode.
                body.finish()
                group.cancelAll()
                return fetched
            }
            outcome = try fetched.get()
        } else {
            outcome = try await fetcher.fetch(url, options: options, context: context, observer: observer)
        }
        switch outcome {
        case .notModified(let http):
            return .notModified(http)
        case .status(let http):
            throw WebImageError(.invalidDownloadStatusCode, "HTTP \(http.statusCode)", httpStatusCode: http.statusCode)
        case .body(let original, let http):
            guard !original.data.isEmpty else {
                let message = "The response from \((http?.url ?? url).redactedForLog) has an empty body"
                guard let http else { throw .badImageData(message) }
                throw WebImageError(
                    .badImageData, message, httpStatusCode: http.statusCode, underlying: EmptyBodyResponse(http: http))
            }
            // A coder of the load's own decodes alone: the key cannot tell two coders apart.
            let shared = context.imageCoder == nil
                ? ImageStage.SharedDecode.Body(fetcher: ObjectIdentifier(fetcher), url: url) : nil
            let image = options.contains(.avoidDecodeImage)
                ? nil : try await stage.image(from: original.data, sharing: shared, in: decodes)
            return .response(ImageLoadResponse(
                url: url, image: image, data: original.data, isFinished: true, http: http, attempts: http?.attempts ?? 1))
        }
    }

    /// Ends `load` with `error`, putting its URL on the block list when the error is
    /// permanent and the delegate (else the loader) agrees.
    func fail(_ load: ManagedLoad, _ error: WebImageError) {
        if FailedURLPolicy.mayBlock(error), shouldBlock(load, error) {
            failedURLs.insert(load.url, error: error)
        }
        load.task.finish(load.failure(error), isLast: true)
    }

    /// The delegate's block-list decision, else the loader's.
    private func shouldBlock(_ load: ManagedLoad, _ error: WebImageError) -> Bool {
        if let decision = delegate?.shouldBlockFailedURL(load.url, error: error) { return decision }
        return load.loader.shouldBlockFailedURL(load.url, error: error)
    }
}
