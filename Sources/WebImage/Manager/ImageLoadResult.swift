import Foundation

/// What a load delivers: SDWebImage's completion arguments (image, data, error, cache
/// type, finished, URL) as one value.
public struct ImageLoadResult: Sendable {
    /// The URL that was asked for (`nil` when the caller passed none).
    public var url: URL?
    /// The image; `nil` on failure, with ``WebImageOptions/avoidDecodeImage``, or when the
    /// load was not allowed to download.
    public var image: DecodedImage?
    /// The encoded data the image came from: the downloaded body or the disk data. `nil`
    /// for memory hits and partial images, and always `nil` for thumbnails and
    /// transformed images, whose pixels no longer match any encoded data.
    public var data: Data?
    /// Why the load failed; `nil` on success.
    public var error: WebImageError?
    /// Where the image came from: ``ImageCacheType/none`` (downloaded, or failed),
    /// ``ImageCacheType/memory`` or ``ImageCacheType/disk``.
    public var cacheType: ImageCacheType
    /// `false` for a partial progressive image (``WebImageOptions/progressiveLoad``);
    /// `true` for the final image or an error.
    public var isFinished: Bool
    /// The cache key of the image (thumbnail and transformer suffixes included).
    public var cacheKey: String?
    /// What the server answered, for an image that was just downloaded over http(s);
    /// `nil` for cache hits, `file:` and `data:`.
    public var http: HTTPResponseInfo?

    /// Creates a result.
    public init(
        url: URL?, image: DecodedImage? = nil, data: Data? = nil, error: WebImageError? = nil,
        cacheType: ImageCacheType = .none, isFinished: Bool = true, cacheKey: String? = nil,
        http: HTTPResponseInfo? = nil
    ) {
        self.url = url
        self.image = image
        self.data = data
        self.error = error
        self.cacheType = cacheType
        self.isFinished = isFinished
        self.cacheKey = cacheKey
        self.http = http
    }

    /// A finished failure.
    package static func failure(_ error: WebImageError, url: URL?, cacheKey: String? = nil) -> ImageLoadResult {
        ImageLoadResult(url: url, error: error, cacheKey: cacheKey)
    }

    /// The image, or the error thrown.
    public func get() throws(WebImageError) -> DecodedImage? {
        if let error { throw error }
        return image
    }
}
