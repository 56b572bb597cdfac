import Foundation

/// The one place where a manager load's context becomes the context of its loader and of
/// its cache queries, and where the layers' derivations from a context live (the decode
/// options a loader or a cache uses, the key a cache keeps a decode under).
///
/// Loaders and caches take ``WebImageContext`` too (as SDWebImage passes one
/// `SDWebImageContext` to all), and the manager hands each its own context with only the
/// fields it decides itself filled in, so that a loader decodes and a cache keys exactly
/// what the manager's cache key says: the loader gets ``WebImageContext/decodeOptions``
/// (the thumbnail size, the scale the original's key names, the scale-down budget of
/// ``WebImageOptions/scaleDownLargeImages``) and ``WebImageContext/validators`` on a
/// revalidation only; a cache query gets the scale-down budget, the scale the original's
/// key names, and the thumbnail size only when it decodes the original's data for a
/// thumbnail.
extension WebImageContext {
    /// The pixel budget ``WebImageOptions/scaleDownLargeImages`` uses when neither
    /// ``scaleDownLimitBytes`` nor ``decodeOptions`` sets one: 60 MiB of RGBA, as SDWebImage.
    public static let defaultScaleDownLimitBytes = 60 * 1024 * 1024

    // MARK: Manager → loader, cache

    /// The scale-down budget of a manager load: ``scaleDownLimitBytes``, else
    /// ``defaultScaleDownLimitBytes`` with ``WebImageOptions/scaleDownLargeImages``, else `nil`.
    private func scaleDownLimit(_ options: WebImageOptions) -> Int? {
        scaleDownLimitBytes ?? (options.contains(.scaleDownLargeImages) ? Self.defaultScaleDownLimitBytes : nil)
    }

    /// The context the manager hands its loader for downloading the image whose original
    /// key (before any thumbnail or transformer suffix) is `originalKey`: this one, with the
    /// decode options worked out here (the scale `originalKey` names, as SDWebImage's loader
    /// takes it, unless ``imageScaleFactor`` is set) and `validators` for a conditional
    /// request. Any ``decodeOptions`` or ``validators`` of the caller's are replaced: the
    /// manager stores the result under a key made from this context's fields, and decides
    /// conditional requests itself.
    func loaderContext(options: WebImageOptions, originalKey: String, validators: HTTPValidators? = nil) -> WebImageContext {
        var context = self
        context.scaleDownLimitBytes = scaleDownLimit(options)
        context.decodeOptions = context.decodeOptions(
            forKey: originalKey, firstFrameOnly: options.contains(.decodeFirstFrameOnly))
        context.validators = validators
        return context
    }

    /// The context for a manager cache query: this one with the scale-down budget of
    /// `options`; `thumbnail` keeps the thumbnail size, to decode the disk data to it
    /// (the original-data query of a thumbnail load). Without it the size is cleared: the
    /// query's key is the thumbnail key already, whose disk data is the thumbnail.
    ///
    /// Unless ``imageScaleFactor`` is set, the scale is the one `originalKey` names (`@2x`):
    /// a thumbnail's or a transform's key ("a@2x-Thumbnail(…).png") has lost the marker,
    /// and its image must have the scale the download gave it.
    func cacheContext(options: WebImageOptions, thumbnail: Bool, originalKey: String?) -> WebImageContext {
        var context = self
        if !thumbnail { context.thumbnailPixelSize = nil }
        context.scaleDownLimitBytes = scaleDownLimit(options)
        if context.imageScaleFactor == nil, let originalKey { context.imageScaleFactor = CacheKey.scale(for: originalKey) }
        return context
    }

    // MARK: What a cache reads

    /// Cache: the key the decoded image is kept under in memory for a query of `key`:
    /// `key` itself, or with a ``thumbnailPixelSize`` its thumbnail key
    /// (``CacheKey/thumbnailed(_:pixelSize:preserveAspectRatio:)``).
    public func memoryKey(forKey key: String) -> String {
        guard let size = thumbnailPixelSize else { return key }
        return CacheKey.thumbnailed(key, pixelSize: size, preserveAspectRatio: preserveAspectRatio)
    }

    /// Cache: the decode options for the disk data of `key`, from ``thumbnailPixelSize``,
    /// ``preserveAspectRatio``, ``scaleDownLimitBytes``, ``maxPixelCount`` and
    /// ``imageScaleFactor`` (else the scale of `key`, ``CacheKey/scale(for:)``). It does
    /// not read ``decodeOptions`` (see there why).
    public func decodeOptions(forKey key: String, firstFrameOnly: Bool) -> ImageDecodeOptions {
        var result = fieldDecodeOptions(scale: imageScaleFactor ?? CacheKey.scale(for: key))
        result.firstFrameOnly = firstFrameOnly
        return result
    }

    /// The decode options the context's decoding fields describe, at `scale`: what a cache
    /// and a loader without ``decodeOptions`` both start from.
    private func fieldDecodeOptions(scale: Double) -> ImageDecodeOptions {
        ImageDecodeOptions(
            thumbnailPixelSize: thumbnailPixelSize,
            preserveAspectRatio: preserveAspectRatio,
            scaleDownLimitBytes: scaleDownLimitBytes,
            maxPixelCount: maxPixelCount,
            scale: scale)
    }

    // MARK: What a loader reads

    /// Loader: the decode options of a load with `options`: ``decodeOptions``, else the
    /// fields' (scale 1 without ``imageScaleFactor``: a loader has no cache key to take
    /// it from), then the option flags on top (first frame only, the scale-down budget
    /// when none is set).
    func loaderDecodeOptions(_ options: WebImageOptions) -> ImageDecodeOptions {
        var result = decodeOptions ?? fieldDecodeOptions(scale: imageScaleFactor ?? 1)
        if options.contains(.decodeFirstFrameOnly) { result.firstFrameOnly = true }
        if options.contains(.scaleDownLargeImages), result.scaleDownLimitBytes == nil {
            result.scaleDownLimitBytes = Self.defaultScaleDownLimitBytes
        }
        return result
    }
}
