import Dispatch
import Foundation

/// Per-load settings beyond the option flags: SDWebImage's `SDWebImageContext`, as a
/// typed struct instead of a dictionary.
///
/// Every field has a default, so `WebImageContext()` is a plain load through the
/// manager's cache and loader. ``ImageManager`` maps it onto the loader's
/// ``ImageLoaderContext`` and the cache's ``ImageCacheContext`` in one place each
/// (`WebImageContext+Mapping.swift`).
///
/// ```swift
/// var context = WebImageContext()
/// context.thumbnailPixelSize = PixelSize(width: 200, height: 200)
/// context.imageTransformer = ImageResizingTransformer(size: .init(width: 100, height: 100), mode: .aspectFill)
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

    // MARK: Delivery

    /// The queue every callback of the load runs on. It should be serial so results
    /// arrive in order. `nil`, the default, is the manager's serial callback queue.
    public var callbackQueue: DispatchQueue?

    // MARK: Components

    /// The cache to query and store in; `nil`, the default, is the manager's.
    public var imageCache: (any ImageCaching)?
    /// The loader to download with; `nil`, the default, is the manager's.
    public var imageLoader: (any ImageLoader)?
    /// The coder that decodes downloaded data; `nil`, the default, is the loader's.
    /// Disk hits are decoded with the cache's coders.
    public var imageCoder: (any ImageCoder)?
    /// Transforms the image after loading; its key is appended to the cache key.
    /// `nil`, the default, uses the manager's ``ImageManager/transformer`` (usually none).
    public var imageTransformer: (any ImageTransformer)?

    // MARK: Decoding

    /// The scale of the decoded image; `nil`, the default, takes it from the key
    /// (`@2x`, `@3x`, see ``CacheKey/scale(for:)``).
    public var imageScaleFactor: Double?
    /// Decode to fit this size in pixels (never larger than the image). The result is
    /// cached under a thumbnail key; the full-size data is kept under the URL's key.
    /// Default `nil`, full size.
    public var thumbnailPixelSize: PixelSize?
    /// With a thumbnail size: keep the aspect ratio (default `true`) or stretch.
    public var preserveAspectRatio: Bool = true

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

    /// Changes or vetoes the HTTP request of this load. Default `nil`, the downloader's.
    public var downloadRequestModifier: ImageDownloadRequestModifier?
    /// Changes or rejects the HTTP response of this load. Default `nil`, the downloader's.
    public var downloadResponseModifier: ImageDownloadResponseModifier?
    /// How transient network failures of this load are retried. Default `nil`, the
    /// downloader's ``DownloaderConfig/retryPolicy``. A load that joins another's transfer
    /// shares that transfer's retries.
    public var retryPolicy: RetryPolicy?
    /// Whether cached images follow their HTTP caching headers for this load. Default
    /// `nil`, the manager's ``ImageManager/httpCachePolicy``.
    public var httpCachePolicy: HTTPCachePolicy?

    // MARK: View layer

    /// The key under which a ``WebImageTarget`` keeps this load; a new load with the same
    /// key cancels it. `nil`, the default, is ``WebImageTargetState/defaultOperationKey``.
    public var setImageOperationKey: String?

    /// Creates a context with every field at its default.
    public init() {}
}
