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

// MARK: - ImageResponse

/// A loaded image and where it came from: what the `async` API of ``ImageManager``
/// returns.
///
/// Unlike ``ImageLoadResult`` (the callback API's value, which also carries failures and
/// partial images), a response always has an image; failures are thrown as
/// ``WebImageCodecs/WebImageError``.
public struct ImageResponse: Sendable {
    /// The image (the partial image of a preview in ``ImageTask/previews``).
    public var image: DecodedImage
    /// The URL that was asked for.
    public var url: URL
    /// Where the image came from: ``ImageCacheType/none`` (loaded now),
    /// ``ImageCacheType/memory`` or ``ImageCacheType/disk``.
    public var cacheType: ImageCacheType
    /// The encoded data the image came from (the downloaded body or the disk data);
    /// `nil` for memory hits, previews, thumbnails and transformed images.
    public var data: Data?
    /// The cache key the image is stored under; `nil` when the key filter said not to cache.
    public var cacheKey: String?
    /// The server's status and headers when the image was just downloaded over http(s).
    public var http: HTTPResponseInfo?
    /// `false` for a partial progressive image (a preview).
    public var isPreview: Bool

    /// Creates a response.
    public init(
        image: DecodedImage, url: URL, cacheType: ImageCacheType, data: Data? = nil, cacheKey: String? = nil,
        http: HTTPResponseInfo? = nil, isPreview: Bool = false
    ) {
        self.image = image
        self.url = url
        self.cacheType = cacheType
        self.data = data
        self.cacheKey = cacheKey
        self.http = http
        self.isPreview = isPreview
    }

    /// The response of a callback result that carries an image; throws its error, or
    /// ``WebImageCodecs/WebImageError/Code/badImageData`` when the load produced no image (for example
    /// with ``WebImageOptions/avoidDecodeImage``, or a delegate that declined the download).
    init(_ result: ImageLoadResult, url: URL) throws(WebImageError) {
        if let error = result.error { throw error }
        guard let image = result.image else {
            throw WebImageError(.badImageData, "The load of \(url.redactedForLog) produced no image")
        }
        self.init(
            image: image, url: url, cacheType: result.cacheType, data: result.data, cacheKey: result.cacheKey,
            http: result.http, isPreview: !result.isFinished)
    }
}
