import Foundation

/// The download stage: whether to download, the request, partial images, failures and
/// the block list.
extension ImageManager {
    /// What a finished download brought, for the store stage.
    struct Download: Sendable {
        /// The decoded image before any transform.
        var image: DecodedImage?
        var data: Data?
        var validators: HTTPValidators?
        var http: HTTPResponseInfo?
    }

    /// Downloads after a miss, or after a hit delivered with refreshCached (`cached`).
    /// Runs on the load's queue.
    func download(_ load: ManagedLoad, cached: ImageCacheQueryResult?) {
        guard !load.operation.isFinished else { return }
        if load.options.contains(.fromCacheOnly) {
            if cached == nil {
                let error = WebImageError(.notInCache, "\(load.url.redactedForLog) is not in the cache (fromCacheOnly)")
                load.operation.deliver(load.failure(error), isLast: true, inline: false)
            } else {
                load.operation.deliver(nil, isLast: true, inline: false)
            }
            return
        }
        guard delegate?.shouldDownloadImage(for: load.url) ?? true else {
            let result = cached == nil ? load.result(image: nil, data: nil, cacheType: .none) : nil
            load.operation.deliver(result, isLast: true, inline: false)
            return
        }
        guard cached != nil else {
            request(load, validators: nil, revalidation: .none)
            return
        }
        readValidators(load) { [self] validators in request(load, validators: validators, revalidation: .refresh) }
    }

    /// Why a request revalidates a cached entry.
    enum Revalidation: Sendable {
        /// Not a revalidation: a miss.
        case none
        /// ``WebImageOptions/refreshCached``: the cached image was delivered; a 304 ends
        /// the load with no second result.
        case refresh
        /// ``HTTPCachePolicy/respectHeaders``: the stale `hit` is held back until the
        /// server answers; a 304 delivers it, and so does a failure when `staleIfError`.
        case freshness(hit: ImageCacheQueryResult, validators: HTTPValidators?, staleIfError: Bool)

        var isRevalidation: Bool {
            if case .none = self { return false }
            return true
        }
    }

    /// Asks the loader for `load.url`; with validators, as a conditional request.
    func request(_ load: ManagedLoad, validators: HTTPValidators?, revalidation: Revalidation) {
        guard !load.operation.isFinished else { return }
        var options = load.options.downloaderOptions
        let conditional = validators?.canValidate ?? false
        if conditional { options.insert(.useHTTPCache) }
        let context = load.context.loaderContext(
            options: load.options, key: load.sourceKey ?? load.url.absoluteString, queue: load.queue,
            validators: conditional ? validators : nil)
        let token = load.loader.requestImage(
            with: load.url, options: options, context: context, progress: load.progress
        ) { [self] result in
            received(load, result, revalidation: revalidation)
        }
        load.operation.setLoaderToken(token)
    }

    /// Handles one loader callback, on the load's queue.
    private func received(_ load: ManagedLoad, _ result: Result<ImageLoadResponse, WebImageError>, revalidation: Revalidation) {
        let isRevalidation = revalidation.isRevalidation
        switch result {
        case .success(let response) where !response.isFinished:
            // Partial images are shown, never stored; a refresh keeps the cached image until the new one is whole.
            guard load.options.contains(.progressiveLoad), !isRevalidation, let image = response.image else { return }
            let partial = load.result(image: image, data: nil, cacheType: .none, isFinished: false)
            load.operation.deliver(partial, isLast: false, inline: false)
        case .success(let response):
            if load.options.contains(.retryFailed) { failedURLs.remove(load.url) }
            let download = Download(
                image: response.image, data: response.data, validators: response.http?.validators, http: response.http)
            // Cache-Control: no-store is honoured whatever the cache policy: memory only.
            let target = response.http?.isNoStore == true ? load.adding(.cacheMemoryOnly) : load
            complete(target, image: response.image, data: response.data, cacheType: .none, download: download)
        case .failure(let error) where isRevalidation:
            if case .freshness(let hit, let validators, let staleIfError) = revalidation {
                revalidated(load, hit: hit, stored: validators, error: error, staleIfError: staleIfError)
                return
            }
            if error.code == .cacheNotModified {
                touchOriginal(load)
            } else {
                // The cached image was delivered and stands; a failed check is no new result.
                if error.code != .cancelled {
                    Self.logger.debug("Revalidating \(load.url.redactedForLog) failed: \(error)")
                }
                load.operation.deliver(error.code == .cancelled ? load.failure(error) : nil, isLast: true, inline: false)
            }
        case .failure(let error):
            fail(load, error)
        }
    }

    /// Ends `load` with `error`, putting its URL on the block list when the error is
    /// permanent and the delegate (else the loader) agrees.
    func fail(_ load: ManagedLoad, _ error: WebImageError) {
        if Self.mayBlock(error), shouldBlock(load, error) {
            failedURLs.insert(load.url, error: error)
        }
        load.operation.deliver(load.failure(error), isLast: true, inline: false)
    }

    /// Whether `error` may put a URL on the block list at all: never a transient failure
    /// (another attempt may succeed), a cancellation, a 304 or an address-policy refusal.
    static func mayBlock(_ error: WebImageError) -> Bool {
        let never: Set<WebImageError.Code> = [
            .cancelled, .cacheNotModified, .forbiddenAddress, .sourceNotAllowed, .timedOut, .cannotConnect, .cannotFindHost, .connectionLost,
            .blackListed,
        ]
        return !never.contains(error.code) && !RetryPolicy.isRetryable(error)
    }

    /// The delegate's block-list decision, else the loader's.
    private func shouldBlock(_ load: ManagedLoad, _ error: WebImageError) -> Bool {
        if let decision = delegate?.shouldBlockFailedURL(load.url, error: error) { return decision }
        return load.loader.shouldBlockFailedURL(load.url, error: error)
    }
}
