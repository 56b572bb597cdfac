import Dispatch

/// Per-query settings of ``ImageCache`` beyond the option flags: decoding and delivery.
public struct ImageCacheContext: Sendable {
    /// Decode the disk data to fit this size (never larger than the image). The result is
    /// kept in memory under ``CacheKey/thumbnailed(_:pixelSize:preserveAspectRatio:)``;
    /// the full-size file is never rewritten. Default `nil`, full size.
    public var thumbnailPixelSize: PixelSize?
    /// With a thumbnail size: keep the aspect ratio (default) or stretch.
    public var preserveAspectRatio: Bool = true
    /// Decode no larger than this many bytes of RGBA per frame. Default `nil`, no limit.
    public var scaleDownLimitBytes: Int?
    /// Refuse images over this many pixels (see ``WebImageCodecs/ImageDecodeOptions/maxPixelCount``).
    public var maxPixelCount: Int = 100_000_000
    /// The scale of the decoded image; `nil`, the default, takes it from the key
    /// (``CacheKey/scale(for:)``).
    public var scale: Double?
    /// Where the callback form's completion runs; `nil`, the default, uses the cache's
    /// ``ImageCachingCallbacks/callbackQueue``. The `async` forms ignore it.
    public var callbackQueue: DispatchQueue?

    public init(
        thumbnailPixelSize: PixelSize? = nil,
        preserveAspectRatio: Bool = true,
        scaleDownLimitBytes: Int? = nil,
        maxPixelCount: Int = 100_000_000,
        scale: Double? = nil,
        callbackQueue: DispatchQueue? = nil
    ) {
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.maxPixelCount = maxPixelCount
        self.scale = scale
        self.callbackQueue = callbackQueue
    }

    /// The key the decoded image is kept under in memory for a query of `key`.
    public func memoryKey(forKey key: String) -> String {
        guard let size = thumbnailPixelSize else { return key }
        return CacheKey.thumbnailed(key, pixelSize: size, preserveAspectRatio: preserveAspectRatio)
    }

    /// The decode options for the disk data of `key`.
    public func decodeOptions(forKey key: String, firstFrameOnly: Bool) -> ImageDecodeOptions {
        ImageDecodeOptions(
            thumbnailPixelSize: thumbnailPixelSize,
            preserveAspectRatio: preserveAspectRatio,
            scaleDownLimitBytes: scaleDownLimitBytes,
            maxPixelCount: maxPixelCount,
            firstFrameOnly: firstFrameOnly,
            scale: scale ?? CacheKey.scale(for: key))
    }
}
