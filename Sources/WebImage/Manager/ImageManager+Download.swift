import Foundation

/// The download stage: the request, partial images, failures and the block list.
extension ImageManager {
    /// Downloads the load's URL; with validators that can validate, as a conditional
    /// request that may answer ``DecodedFetch/notModified(_:)``.
    ///
    /// `task` steers the download through a token (priority changes, cancel)
    /// and hears its progress; partial images reach it unless this is a revalidation.
    func download(
        _ request: ImageRequest, _ task: ImageTask, validators: HTTPValidators?, isRevalidation: Bool
    ) async throws(WebImageError) -> DecodedFetch {
        try task.checkCancelled()
        var options = request.loaderOptions
        let conditional = validators?.canValidate ?? false
        if conditional { options.insert(.useHTTPCache) }
        let context = request.loaderContext(validators: conditional ? validators : nil)
        let token = ImageLoadToken(url: request.url, priority: task.priority)
        task.attach(token)
        var observer = ImageLoadObserver(token: token)
        if task.reportsProgress {
            observer.progress = { received, expected in task.reportProgress(received: received, expected: expected) }
        }
        var partial: (@Sendable (DecodedImage) -> Void)?
        if request.options.contains(.progressiveLoad), !isRevalidation {
            // Partial images are shown, never stored.
            partial = { image in
                task.finish(request.result(image: image, data: nil, cacheType: .none, isFinished: false), isLast: false)
            }
        }
        let downloaded = try await Self.download(
            request.url, from: request.loader, options: options, context: context, observer: observer, partial: partial)
        if request.options.contains(.retryFailed), case .response = downloaded { failedURLs.remove(request.url) }
        return downloaded
    }

    /// One download from `loader`. A loader with a fetcher for the URL
    /// (``ImageFetchingLoader``, the default ``ImageDownloader``) fetches the body and
    /// decodes it in stage B (``ImageDownloader/loadDecoded(_:options:context:observer:partial:)``);
    /// any other loader loads and decodes itself
    /// (``ImageLoader/loadImage(with:options:context:observer:)``), its thrown 304 read as
    /// ``DecodedFetch/notModified(_:)``.
    static func download(
        _ url: URL, from loader: any ImageLoader, options: WebImageOptions, context: WebImageContext,
        observer: ImageLoadObserver, partial: (@Sendable (DecodedImage) -> Void)?
    ) async throws(WebImageError) -> DecodedFetch {
        if let fetcher = (loader as? any ImageFetchingLoader)?.fetcher(for: url) {
            return try await fetcher.loadDecoded(url, options: options, context: context, observer: observer, partial: partial)
        }
        var observer = observer
        if let partial { observer.partialImage = { response in if let image = response.image { partial(image) } } }
        do throws(WebImageError) {
            return .response(try await loader.loadImage(with: url, options: options, context: context, observer: observer))
        } catch where error.code == .cacheNotModified {
            return .notModified((error.underlyingError as? NotModifiedResponse)?.http)
        }
    }

    /// Ends the load with `error`, putting its URL on the block list when the error is
    /// permanent and the delegate (else the loader) agrees.
    func fail(_ request: ImageRequest, _ task: ImageTask, _ error: WebImageError) {
        if FailedURLPolicy.mayBlock(error), shouldBlock(request, error) {
            failedURLs.insert(request.url, error: error)
        }
        task.finish(request.failure(error), isLast: true)
    }

    /// The delegate's block-list decision, else the loader's.
    private func shouldBlock(_ request: ImageRequest, _ error: WebImageError) -> Bool {
        if let decision = delegate?.shouldBlockFailedURL(request.url, error: error) { return decision }
        return request.loader.shouldBlockFailedURL(request.url, error: error)
    }
}
