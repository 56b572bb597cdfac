import Foundation

/// The one place where a manager context becomes a loader or cache context.
extension WebImageContext {
    /// The scale-down budget of ``WebImageOptions/scaleDownLargeImages``, or `nil`.
    private func scaleDownLimit(_ options: WebImageOptions) -> Int? {
        options.contains(.scaleDownLargeImages) ? ImageLoaderContext.defaultScaleDownLimitBytes : nil
    }

    /// The loader context for downloading `key`.
    func loaderContext(options: WebImageOptions, key: String, validators: HTTPValidators? = nil) -> ImageLoaderContext {
        let decode = ImageDecodeOptions(
            thumbnailPixelSize: thumbnailPixelSize,
            preserveAspectRatio: preserveAspectRatio,
            scaleDownLimitBytes: scaleDownLimit(options),
            firstFrameOnly: options.contains(.decodeFirstFrameOnly),
            scale: imageScaleFactor ?? CacheKey.scale(for: key))
        return ImageLoaderContext(
            decodeOptions: decode,
            validators: validators,
            requestModifier: downloadRequestModifier,
            responseModifier: downloadResponseModifier,
            coders: imageCoder,
            retryPolicy: retryPolicy)
    }

    /// The cache context for a query; `thumbnail` decodes the disk data to the context's
    /// thumbnail size (used for the original-data query).
    func cacheContext(options: WebImageOptions, thumbnail: Bool) -> ImageCacheContext {
        ImageCacheContext(
            thumbnailPixelSize: thumbnail ? thumbnailPixelSize : nil,
            preserveAspectRatio: preserveAspectRatio,
            scaleDownLimitBytes: scaleDownLimit(options),
            scale: imageScaleFactor)
    }
}
