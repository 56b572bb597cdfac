/// The options of a load, a download and a cache query: SDWebImage's `SDWebImageOptions`,
/// with the same names and meanings, plus the few bits SDWebImage keeps apart in
/// `SDWebImageDownloaderOptions` and `SDImageCacheOptions`.
///
/// ```swift
/// manager.loadImage(with: url, options: [.retryFailed, .scaleDownLargeImages]) { result in … }
/// ```
///
/// One set, not three: ``ImageManager`` takes it, and hands the same type to its
/// ``ImageLoader`` (`loadImage(with:options:context:observer:)`) and its ``ImageCaching``
/// (`queryImage(forKey:options:context:)`), so an option keeps its name and bit from the
/// manager down to the layer that reads it. The manager passes each layer only the bits
/// that layer reads: a loader gets the transfer and decode bits (priority, progressive,
/// cookies, TLS, the decode options, and ``useHTTPCache`` when the manager revalidates);
/// a cache query gets the query bits, plus ``queryMemoryOnly`` or ``queryDiskOnly`` from
/// ``WebImageContext/queryCacheType``. Each option's documentation says which layer reads it.
public struct WebImageOptions: OptionSet, Sendable, Hashable {
    /// The option bits.
    public let rawValue: UInt64
    /// Creates options from their bits.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Try a URL again even if it failed before and is in the failed-URL block list.
    public static let retryFailed = WebImageOptions(rawValue: 1 << 0)
    /// Queue the download after normal ones.
    public static let lowPriority = WebImageOptions(rawValue: 1 << 1)
    /// Deliver partial images while the download runs (`finished == false`).
    public static let progressiveLoad = WebImageOptions(rawValue: 1 << 2)
    /// Deliver the cached image, then revalidate it with the server (ETag / Last-Modified)
    /// and deliver the new image only when it changed.
    public static let refreshCached = WebImageOptions(rawValue: 1 << 3)
    /// Send and store cookies, using the downloader's in-memory cookie jar.
    public static let handleCookies = WebImageOptions(rawValue: 1 << 5)
    /// Accept TLS certificates that do not verify (self-signed, expired). Insecure.
    public static let allowInvalidSSLCertificates = WebImageOptions(rawValue: 1 << 6)
    /// Queue the download before normal ones.
    public static let highPriority = WebImageOptions(rawValue: 1 << 7)
    /// View layer: show the placeholder only if the load fails, not while it runs.
    public static let delayPlaceholder = WebImageOptions(rawValue: 1 << 8)
    /// Apply the transformer to animated images too (frame by frame); by default they
    /// are left untransformed.
    public static let transformAnimatedImage = WebImageOptions(rawValue: 1 << 9)
    /// View layer: do not set the image on the target; the completion does it.
    public static let avoidAutoSetImage = WebImageOptions(rawValue: 1 << 10)
    /// Decode large images smaller (see ``WebImageCodecs/ImageDecodeOptions/scaleDownLimitBytes``).
    public static let scaleDownLargeImages = WebImageOptions(rawValue: 1 << 11)
    /// On a memory hit, also read the encoded data from disk (asynchronously).
    public static let queryMemoryData = WebImageOptions(rawValue: 1 << 12)
    /// With `queryMemoryData`, callback form only: read the data synchronously on the
    /// calling thread (blocking it). The `async` API reads it without blocking.
    public static let queryMemoryDataSync = WebImageOptions(rawValue: 1 << 13)
    /// Callback form only: on a memory miss, read and decode from disk synchronously on
    /// the calling thread (blocking it); a cache hit then completes before `loadImage`
    /// returns. Needs a cache that answers
    /// ``ImageCaching/queryImageSynchronously(forKey:options:context:)`` (the library's own
    /// does; other caches are queried as usual). The `async`
    /// API reads the disk without blocking whatever this says.
    public static let queryDiskDataSync = WebImageOptions(rawValue: 1 << 14)
    /// Never download: a cache miss fails with ``WebImageCodecs/WebImageError/Code/notInCache``.
    public static let fromCacheOnly = WebImageOptions(rawValue: 1 << 15)
    /// Skip the cache query and always download (the result is still stored).
    public static let fromLoaderOnly = WebImageOptions(rawValue: 1 << 16)
    /// Deliver the data only; do not decode an image.
    public static let avoidDecodeImage = WebImageOptions(rawValue: 1 << 17)
    /// Decode only the first frame of animated images.
    public static let decodeFirstFrameOnly = WebImageOptions(rawValue: 1 << 18)
    /// Call the completion only after the image was written to the disk cache.
    public static let waitStoreCache = WebImageOptions(rawValue: 1 << 20)
    /// View layer: a new load on a target does not cancel the one already running.
    public static let avoidAutoCancelImage = WebImageOptions(rawValue: 1 << 21)
    /// Store the result in memory only, never on disk.
    public static let cacheMemoryOnly = WebImageOptions(rawValue: 1 << 22)
    /// Complete a memory hit synchronously, on the calling thread, before `loadImage`
    /// returns. Without it every completion runs on the callback queue.
    public static let queryMemorySync = WebImageOptions(rawValue: 1 << 23)
    /// Load animations lazily: the result of an animated GIF, APNG or WebP is a
    /// ``WebImageCodecs/DecodedImage`` holding only the poster frame and an ``WebImageCodecs/AnimatedImage``
    /// (``WebImageCodecs/DecodedImage/animation``: the encoded data, frames decoded on demand), not every
    /// frame's pixels. Off by default: without it, animations decode whole.
    ///
    /// - **Memory**: the memory cache charges ``WebImageCodecs/DecodedImage/cost`` (poster + data + a fixed
    ///   bound on what the animation keeps between frame requests, see
    ///   ``WebImageCodecs/AnimatedImage/cacheCost``): a 357 KB, 380-frame GIF of 472×298 costs 5.0 MB
    ///   instead of 214 MB. Play it with ``WebImageCodecs/AnimatedImagePlayer`` (frames decode ahead on
    ///   ``WebImageCodecs/DecodeQueue``, bounded by its buffer size) or read frames with
    ///   ``WebImageCodecs/AnimatedImage/frame(at:)``.
    /// - **Keys**: the result is kept under its own key (``ImageManager/cacheKey(for:options:context:)``
    ///   ends with ``ImageManager/lazyAnimationKeySuffix``), so eager loads of the same URL
    ///   never receive a lazy image and lazy loads always do. A lazy animation is kept in
    ///   memory only; the disk keeps the original's encoded data as for any load, and a
    ///   later lazy load reads it (structure and poster only) after a memory miss. A derived
    ///   still image (a thumbnail or transform of a JPEG, say) goes to disk under that key
    ///   as usual.
    /// - **Transforms**: with ``transformAnimatedImage`` the transformer runs on each frame
    ///   when it is decoded, on the thread that asks for it (``WebImageCodecs/DecodeQueue`` for a player),
    ///   not on every frame up front; thumbnails decode each frame at the thumbnail size.
    /// - **Encoding**: an ``WebImageCodecs/ImageCoder`` writes only the frames a ``WebImageCodecs/DecodedImage`` holds (the
    ///   poster): encode the animation with ``WebImageCodecs/AnimatedImage/encoded(as:options:)``.
    /// - Still images load as they would without the option (under the lazy key). The cache
    ///   serializer is not run for lazy loads: the downloaded data is stored as it came.
    public static let lazyAnimatedImage = WebImageOptions(rawValue: 1 << 24)
    /// Store the result (and the downloaded original) on disk only, never in memory, so
    /// a batch job's decoded images do not pile up in the memory cache. With
    /// ``cacheMemoryOnly`` nothing is stored. Disk hits are still decoded as usual.
    public static let avoidMemoryCache = WebImageOptions(rawValue: 1 << 30)

    // The bits below are read by one layer only. SDWebImage has them in
    // `SDWebImageDownloaderOptions` (the loader's) and `SDImageCacheOptions` (the cache's);
    // here they share this one set, at bits no manager option uses.

    /// Loader: make a conditional request with ``WebImageContext/validators``
    /// (`If-None-Match`, `If-Modified-Since`); a 304 fails with
    /// ``WebImageCodecs/WebImageError/Code/cacheNotModified``.
    ///
    /// SDWebImage has it in `SDWebImageDownloaderOptions`. The manager sets it itself when
    /// it revalidates a cached copy (``refreshCached``, HTTP freshness); on a manager load
    /// it is ignored.
    public static let useHTTPCache = WebImageOptions(rawValue: 1 << 25)
    /// Loader: SDWebImage's name for the same conditional request as ``useHTTPCache``
    /// (`SDWebImageDownloaderIgnoreCachedResponse`): the caller holds a cached copy and
    /// wants `cacheNotModified` rather than the same bytes again. On a manager load it is
    /// ignored.
    public static let ignoreCachedResponse = WebImageOptions(rawValue: 1 << 26)
    /// Cache query: look in memory only; a memory miss is a miss.
    ///
    /// SDWebImage has it in `SDImageCacheOptions`. The manager sets it from
    /// ``WebImageContext/queryCacheType`` (``ImageCacheType/memory``); on a manager load
    /// it is ignored.
    public static let queryMemoryOnly = WebImageOptions(rawValue: 1 << 27)
    /// Cache query: skip the memory cache and read the disk (the decoded result is still
    /// kept in memory).
    ///
    /// SDWebImage has it in `SDImageCacheOptions`. The manager sets it from
    /// ``WebImageContext/queryCacheType`` (``ImageCacheType/disk``); on a manager load it
    /// is ignored.
    public static let queryDiskOnly = WebImageOptions(rawValue: 1 << 28)

    /// Every option a manager load reads, by its name, as the command line's
    /// `--option NAME` takes them. The loader-only and cache-only bits (``useHTTPCache``,
    /// ``ignoreCachedResponse``, ``queryMemoryOnly``, ``queryDiskOnly``) are not listed:
    /// the manager sets them itself and ignores them on a load.
    public static let byName: [String: WebImageOptions] = [
        "retryFailed": .retryFailed, "lowPriority": .lowPriority, "progressiveLoad": .progressiveLoad,
        "refreshCached": .refreshCached, "handleCookies": .handleCookies, "allowInvalidSSLCertificates": .allowInvalidSSLCertificates,
        "highPriority": .highPriority, "delayPlaceholder": .delayPlaceholder,
        "transformAnimatedImage": .transformAnimatedImage, "avoidAutoSetImage": .avoidAutoSetImage,
        "scaleDownLargeImages": .scaleDownLargeImages, "queryMemoryData": .queryMemoryData,
        "queryMemoryDataSync": .queryMemoryDataSync, "queryDiskDataSync": .queryDiskDataSync,
        "fromCacheOnly": .fromCacheOnly, "fromLoaderOnly": .fromLoaderOnly,
        "avoidDecodeImage": .avoidDecodeImage, "decodeFirstFrameOnly": .decodeFirstFrameOnly,
        "waitStoreCache": .waitStoreCache,
        "avoidAutoCancelImage": .avoidAutoCancelImage, "cacheMemoryOnly": .cacheMemoryOnly,
        "queryMemorySync": .queryMemorySync, "lazyAnimatedImage": .lazyAnimatedImage,
        "avoidMemoryCache": .avoidMemoryCache,
    ]
}

extension WebImageOptions {
    /// Loader: whether these options ask for a conditional request
    /// (``useHTTPCache`` or ``ignoreCachedResponse``).
    var isConditional: Bool { !isDisjoint(with: [.useHTTPCache, .ignoreCachedResponse]) }

    /// The queueing priority ``lowPriority`` / ``highPriority`` ask for (high wins).
    package var loadPriority: ImageLoadPriority {
        if contains(.highPriority) { return .high }
        if contains(.lowPriority) { return .low }
        return .normal
    }
}
