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
            request(load, validators: nil, isRevalidation: false)
            return
        }
        readValidators(load) { [self] validators in request(load, validators: validators, isRevalidation: true) }
    }

    /// Asks the loader for `load.url`; with validators, as a conditional request.
    private func request(_ load: ManagedLoad, validators: HTTPValidators?, isRevalidation: Bool) {
        guard !load.operation.isFinished else { return }
        var options = load.options.downloaderOptions
        let conditional = validators.map { !$0.isEmpty } ?? false
        if conditional { options.insert(.useHTTPCache) }
        let context = load.context.loaderContext(
            options: load.options, key: load.sourceKey ?? load.url.absoluteString, queue: load.queue,
            validators: conditional ? validators : nil)
        let token = load.loader.requestImage(
            with: load.url, options: options, context: context, progress: load.progress
        ) { [self] result in
            received(load, result, isRevalidation: isRevalidation)
        }
        load.operation.setLoaderToken(token)
    }

    /// Handles one loader callback, on the load's queue.
    private func received(_ load: ManagedLoad, _ result: Result<ImageLoadResponse, WebImageError>, isRevalidation: Bool) {
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
            complete(load, image: response.image, data: response.data, cacheType: .none, download: download)
        case .failure(let error) where isRevalidation:
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
            if error.code != .cancelled, error.code != .cacheNotModified, shouldBlock(load, error) {
                failedURLs.insert(load.url)
            }
            load.operation.deliver(load.failure(error), isLast: true, inline: false)
        }
    }

    /// The delegate's block-list decision, else the loader's.
    private func shouldBlock(_ load: ManagedLoad, _ error: WebImageError) -> Bool {
        if let decision = delegate?.shouldBlockFailedURL(load.url, error: error) { return decision }
        return load.loader.shouldBlockFailedURL(load.url, error: error)
    }
}
