import Foundation
import WebImage

/// Loading an image into a target: SDWebImage's `sd_setImageWithURL` family.
extension WebImageTarget {
    /// The URL of the latest ``setImage(with:placeholder:options:context:manager:progress:completed:)``,
    /// set synchronously when it is called.
    public var imageURL: URL? { webImageState.imageURL }

    /// The loading indicator; `nil`, the default, shows none.
    public var imageIndicator: (any ImageIndicator)? {
        get { webImageState.indicator }
        set { webImageState.indicator = newValue }
    }

    /// Loads `url` into this target.
    ///
    /// - The load running under the same operation key
    ///   (`WebImageContext.setImageOperationKey`) is cancelled first, unless
    ///   ``WebImage/WebImageOptions/avoidAutoCancelImage``. Either way only the newest load may
    ///   change ``WebImageTarget/image``: a stale one never overwrites a newer image.
    /// - `placeholder` is set synchronously, before loading, unless
    ///   ``WebImage/WebImageOptions/delayPlaceholder``, which shows it only when the load ends
    ///   without an image.
    /// - The loaded image (and partial images with ``WebImage/WebImageOptions/progressiveLoad``) is
    ///   set on the load's callback queue, unless ``WebImage/WebImageOptions/avoidAutoSetImage``
    ///   leaves that to `completed`.
    /// - `completed` runs on the load's callback queue (default `ImageManager.callbackQueue`) for every
    ///   result, stale ones included, after the image was set. A `nil` URL completes
    ///   with ``WebImageCodecs/WebImageError/Code/invalidURL``.
    ///
    /// - Returns: the load's operation, or `nil` for a `nil` URL.
    @discardableResult
    public func setImage(
        with url: URL?,
        placeholder: DecodedImage? = nil,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext(),
        manager: ImageManager = .shared,
        progress: ImageLoaderProgress? = nil,
        completed: (@Sendable (ImageLoadResult) -> Void)? = nil
    ) -> CombinedOperation? {
        let key = context.setImageOperationKey ?? WebImageTargetState.defaultOperationKey
        let state = webImageState
        let (id, previous) = state.begin(key: key, url: url, replacing: !options.contains(.avoidAutoCancelImage))
        previous?.cancel()
        if !options.contains(.delayPlaceholder) { state.apply(placeholder, to: self, key: key, id: id) }
        let indicator = state.indicator
        guard let url else {
            if options.contains(.delayPlaceholder) { state.apply(placeholder, to: self, key: key, id: id) }
            state.end(key: key, id: id)
            indicator?.stopAnimating()
            let result = ImageLoadResult.failure(WebImageError(.invalidURL, "The image URL is nil"), url: nil)
            if let completed { (context.callbackQueue ?? manager.callbackQueue).async { completed(result) } }
            return nil
        }
        indicator?.startAnimating()
        let reportProgress: ImageLoaderProgress = { received, expected in
            if state.isCurrent(key: key, id: id) {
                indicator?.updateProgress(expected > 0 ? min(1, Double(received) / Double(expected)) : 0)
            }
            progress?(received, expected)
        }
        let operation = CombinedOperation(manager.startOperation(
            with: url, options: options, context: context, progress: reportProgress
        ) { [weak self] result, isLast in
            if let self, state.isCurrent(key: key, id: id) {
                if let image = result?.image {
                    if !options.contains(.avoidAutoSetImage) { state.apply(image, to: self, key: key, id: id) }
                } else if let result, result.isFinished, options.contains(.delayPlaceholder) {
                    state.apply(placeholder, to: self, key: key, id: id)
                }
                if isLast {
                    state.end(key: key, id: id)
                    indicator?.stopAnimating()
                }
            }
            if let result { completed?(result) }
        })
        state.attach(operation, key: key, id: id)
        return operation
    }

    /// Cancels the load running under `key` (default
    /// ``WebImageTargetState/defaultOperationKey``) and stops the indicator. The image
    /// shown stays; the cancelled load's completion gets ``WebImageCodecs/WebImageError/Code/cancelled``.
    public func cancelCurrentImageLoad(forKey key: String = WebImageTargetState.defaultOperationKey) {
        webImageState.cancelOperation(forKey: key)
        webImageState.indicator?.stopAnimating()
    }
}
