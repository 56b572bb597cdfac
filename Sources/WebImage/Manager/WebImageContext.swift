import Foundation

/// Per-load settings beyond the option flags: SDWebImage's `SDWebImageContext`, as a
/// typed struct instead of a dictionary.
///
/// As in SDWebImage, it is the one context of every layer: ``ImageManager`` takes it, and
/// so do its ``ImageLoader`` (``ImageLoader/loadImage(with:options:context:observer:)``)
/// and its ``ImageCaching`` (``ImageCaching/queryImage(forKey:options:context:)``). Each
/// field says which layer reads it. The manager hands its loader and its cache queries
/// its own context with the few fields it decides itself filled in (the loader's decode
/// options and validators, a cache query's thumbnail size and scale-down budget), decided
/// once per load (`ImageRequest.swift`).
///
/// Every field has a default, so `WebImageContext()` is a plain load through the
/// manager's cache and loader (or, given to a loader or a cache directly, a plain
/// full-size load or query).
///
/// ```swift
/// var context = WebImageContext()
/// context.thumbnailPixelSize = PixelSize(width: 200, height: 200)
/// context.imageTransformer = ImageTransform.resize(to: .init(width: 100, height: 100), mode: .aspectFill)
/// manager.loadImage(with: url, context: context) { result in … }
/// ```
public struct WebImageContext: Sendable {
    /// Turns a URL into its cache key; `nil` from the filter means "do not cache". Runs
    /// on the thread that starts the load (and for `cacheKey(for:)`, its caller's), so
    /// it must be quick.
    public typealias CacheKeyFilter = @Sendable (URL) -> String?
    /// Gives the bytes to store on disk for a downloaded image (its original `data`, or
    /// something else); `nil` stores nothing on disk. Runs on the manager's
    /// ``ImageManager/decodeQueue``, so
    /// it may encode.
    public typealias CacheSerializer = @Sendable (_ image: DecodedImage, _ data: Data?, _ url: URL) -> Data?

    // MARK: WebImageCompat's

    /// WebImageCompat's fields of the context (its `callbackQueue` and
    /// `setImageOperationKey`, SDWebImage's context options for the callback forms and the
    /// view layer), kept here so they travel with the load to its loader and cache, as
    /// SDWebImage's context does. WebImage never reads them: its `async` API names no queue.
    package var compat: (any Sendable)?

    // MARK: Components

    /// The cache to query and store in; `nil`, the default, is the manager's.
    public var imageCache: (any ImageCaching)?
    /// The loader to download with; `nil`, the default, is the manager's.
    public var imageLoader: (any ImageLoader)?
    /// The coder that decodes downloaded data; `nil`, the default, is the loader's (by
    /// default ``WebImageCodecs/ImageCodersManager/shared``). Read by the loader; disk
    /// hits are decoded with the cache's coders.
    public var imageCoder: (any ImageCoder)?
    /// Transforms the image after loading; its key is appended to the cache key.
    /// `nil`, the default, uses the manager's ``ImageManager/transformer`` (usually none).
    public var imageTransformer: (any ImageTransformer)?

    // MARK: Decoding

    /// The scale of the decoded image. `nil`, the default, takes it from the key
    /// (`@2x`, `@3x`, see ``CacheKey/scale(for:)``): the manager resolves it from the
    /// original's key (the URL's, before any thumbnail or transformer suffix) for its
    /// loader's ``decodeOptions`` and its cache queries; a cache queried directly takes it
    /// from the key it is asked; a loader given no ``decodeOptions`` decodes at scale 1.
    public var imageScaleFactor: Double?
    /// Decode to fit this size in pixels (never larger than the image). On a manager
    /// load the result is cached under a thumbnail key; the full-size data is kept under
    /// the URL's key. A cache query decodes its disk data to this size and keeps the
    /// result in memory under ``memoryKey(forKey:)`` (the file is never rewritten); a
    /// loader given no ``decodeOptions`` decodes to it. Default `nil`, full size.
    public var thumbnailPixelSize: PixelSize?
    /// With a thumbnail size: keep the aspect ratio (default `true`) or stretch. Read
    /// wherever ``thumbnailPixelSize`` is.
    public var preserveAspectRatio: Bool = true
    /// Decode no larger than this many bytes of RGBA per frame (SDWebImage's
    /// `SDWebImageContextImageScaleDownLimitBytes`). `nil`, the default, is no limit,
    /// except that with ``WebImageOptions/scaleDownLargeImages`` the manager and a loader
    /// use ``defaultScaleDownLimitBytes``.
    ///
    /// Read by a cache query (its disk decode) and by a loader given no
    /// ``decodeOptions``. A field rather than a value derived from the option alone,
    /// because a cache query never sees ``WebImageOptions/scaleDownLargeImages`` (it is not
    /// one of the bits the manager hands a query, and adding it would change the options
    /// every cache gets): the manager resolves the option into this field for its cache
    /// queries, as it did for the cache's own context, and a direct caller of a cache can
    /// still ask for any budget.
    public var scaleDownLimitBytes: Int?
    /// Refuse images over this many pixels (see ``WebImageCodecs/ImageDecodeOptions/maxPixelCount``).
    /// Read by a cache query and by a loader given no ``decodeOptions``. Default 100 million.
    public var maxPixelCount: Int = 100_000_000
    /// Loaders: decode with exactly these options (``WebImageOptions/decodeFirstFrameOnly``
    /// and ``WebImageOptions/scaleDownLargeImages`` still applied on top) instead of
    /// deriving them from ``thumbnailPixelSize``, ``preserveAspectRatio``,
    /// ``scaleDownLimitBytes``, ``maxPixelCount`` and ``imageScaleFactor``. The downloader
    /// decodes once per distinct value among the callers of one transfer.
    ///
    /// On a manager load the manager sets it for its loader, from those fields and the
    /// scale of the original's key, replacing any value given: what the loader decodes is stored
    /// under a key made from the fields, so it must be what they say. A cache query does
    /// not read it, for the same reason: its disk decode is kept in memory under
    /// ``memoryKey(forKey:)``, which names the fields' thumbnail size. Default `nil`.
    public var decodeOptions: ImageDecodeOptions?

    // MARK: Caching

    /// Replaces the manager's ``ImageManager/cacheKeyFilter`` for this load. Default `nil`.
    public var cacheKeyFilter: CacheKeyFilter?
    /// Replaces the manager's ``ImageManager/cacheSerializer`` for this load. Default `nil`.
    public var cacheSerializer: CacheSerializer?
    /// Which caches the load looks in for the result. Default ``ImageCacheType/all``;
    /// ``ImageCacheType/none`` skips the query.
    public var queryCacheType: ImageCacheType = .all
    /// Which caches the result is stored in. Default ``ImageCacheType/all``.
    public var storeCacheType: ImageCacheType = .all
    /// For a thumbnail or transformed load that missed: which caches to look in for the
    /// original (full-size, untransformed) data. Default ``ImageCacheType/disk``.
    public var originalQueryCacheType: ImageCacheType = .disk
    /// For a thumbnail or transformed load: which caches the downloaded original data
    /// is stored in. Default ``ImageCacheType/disk``.
    public var originalStoreCacheType: ImageCacheType = .disk

    // MARK: Downloading

    /// Changes or vetoes the HTTP request of this load; read by the downloader, in place
    /// of its ``DownloaderConfig/requestModifier``. Default `nil`, the downloader's.
    public var downloadRequestModifier: ImageDownloadRequestModifier?
    /// Changes or rejects the HTTP response of this load; read by the downloader, in place
    /// of its ``DownloaderConfig/responseModifier``. Default `nil`, the downloader's.
    public var downloadResponseModifier: ImageDownloadResponseModifier?
    /// How transient network failures of this load are retried; read by the downloader.
    /// Default `nil`, the downloader's ``DownloaderConfig/retryPolicy``. A load that joins
    /// another's transfer shares that transfer's retries (and its policy).
    public var retryPolicy: RetryPolicy?
    /// Whether cached images follow their HTTP caching headers for this load. Default
    /// `nil`, the manager's ``ImageManager/httpCachePolicy``.
    public var httpCachePolicy: HTTPCachePolicy?
    /// Validators for a conditional request, which the downloader sends only with
    /// ``WebImageOptions/useHTTPCache`` or ``WebImageOptions/ignoreCachedResponse``
    /// (a 304 then throws ``WebImageCodecs/WebImageError/Code/cacheNotModified``). On a
    /// manager load the manager sets it for its loader when it revalidates a stored image,
    /// replacing any value given (it decides conditional requests itself). Default `nil`.
    public var validators: HTTPValidators?

    /// Creates a context with every field at its default.
    public init() {}
}

/// What the layers derive from a context: the key a cache keeps a decode under, and the
/// decode options a cache and a loader use.
extension WebImageContext {
    /// The pixel budget ``WebImageOptions/scaleDownLargeImages`` uses when neither
    /// ``scaleDownLimitBytes`` nor ``decodeOptions`` sets one: 60 MiB of RGBA, as SDWebImage.
    public static let defaultScaleDownLimitBytes = 60 * 1024 * 1024

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
}
