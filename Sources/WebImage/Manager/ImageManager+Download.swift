import Foundation

/// The download stage: the request, partial images, failures and the block list.
extension ImageManager {
    /// Asks the load's loader for its URL; with validators that can validate, as a
    /// conditional request (a 304 throws ``WebImageCodecs/WebImageError/Code/cacheNotModified``).
    ///
    /// The load's task steers the download through a token (priority changes, cancel)
    /// and hears its progress; partial images reach it unless this is a revalidation.
    func download(
        _ load: ManagedLoad, validators: HTTPValidators?, isRevalidation: Bool
    ) async throws(WebImageError) -> ImageLoadResponse {
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
        if load.options.contains(.progressiveLoad), !isRevalidation {
            // Partial images are shown, never stored.
            observer.partialImage = { response in
                guard let image = response.image else { return }
                task.finish(load.result(image: image, data: nil, cacheType: .none, isFinished: false), isLast: false)
            }
        }
        let response = try await load.loader.loadImage(with: load.url, options: options, context: context, observer: observer)
        if load.options.contains(.retryFailed) { failedURLs.remove(load.url) }
        return response
    }

    /// Ends `load` with `error`, putting its URL on the block list when the error is
    /// permanent and the delegate (else the loader) agrees.
    func fail(_ load: ManagedLoad, _ error: WebImageError) {
        if Self.mayBlock(error), shouldBlock(load, error) {
            failedURLs.insert(load.url, error: error)
        }
        load.task.finish(load.failure(error), isLast: true)
    }

    /// Whether `error` may put a URL on the block list at all: never a transient failure
    /// (another attempt may succeed), a cancellation, a 304 or an address-policy refusal.
    static func mayBlock(_ error: WebImageError) -> Bool {
        let never: Set<WebImageError.Code> = [
            .cancelled, .cacheNotModified, .forbiddenAddress, .sourceNotAllowed, .timedOut, .cannotConnect, .cannotFindHost,
            .connectionLost, .blackListed, .notInCache,
        ]
        return !never.contains(error.code) && !RetryPolicy.isRetryable(error)
    }

    /// The delegate's block-list decision, else the loader's.
    private func shouldBlock(_ load: ManagedLoad, _ error: WebImageError) -> Bool {
        if let decision = delegate?.shouldBlockFailedURL(load.url, error: error) { return decision }
        return load.loader.shouldBlockFailedURL(load.url, error: error)
    }
}
