/// Per-load options: SDWebImage's `SDWebImageOptions`, with the same names and meanings.
///
/// ```swift
/// manager.loadImage(with: url, options: [.retryFailed, .scaleDownLargeImages]) { result in … }
/// ```
public struct WebImageOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt64
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
    /// Accepted for source compatibility; has no effect off Apple platforms, where there
    /// is no background-task API to ask for more time.
    public static let continueInBackground = WebImageOptions(rawValue: 1 << 4)
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
    /// Decode large images smaller (see ``ImageDecodeOptions/scaleDownLimitBytes``).
    public static let scaleDownLargeImages = WebImageOptions(rawValue: 1 << 11)
    /// On a memory hit, also read the encoded data from disk (asynchronously).
    public static let queryMemoryData = WebImageOptions(rawValue: 1 << 12)
    /// With `queryMemoryData`: read the data synchronously.
    public static let queryMemoryDataSync = WebImageOptions(rawValue: 1 << 13)
    /// On a memory miss, read and decode from disk synchronously on the calling thread;
    /// a cache hit then completes before `loadImage` returns. Needs an ``ImageCache``
    /// (other caches are queried as usual).
    public static let queryDiskDataSync = WebImageOptions(rawValue: 1 << 14)
    /// Never download: a cache miss fails with ``WebImageError/Code/notInCache``.
    public static let fromCacheOnly = WebImageOptions(rawValue: 1 << 15)
    /// Skip the cache query and always download (the result is still stored).
    public static let fromLoaderOnly = WebImageOptions(rawValue: 1 << 16)
    /// Deliver the data only; do not decode an image.
    public static let avoidDecodeImage = WebImageOptions(rawValue: 1 << 17)
    /// Decode only the first frame of animated images.
    public static let decodeFirstFrameOnly = WebImageOptions(rawValue: 1 << 18)
    /// Decode every frame of an animation up front. Frames are always fully decoded
    /// here (there is no lazy frame decoding), so this is accepted and has no extra effect.
    public static let preloadAllFrames = WebImageOptions(rawValue: 1 << 19)
    /// Call the completion only after the image was written to the disk cache.
    public static let waitStoreCache = WebImageOptions(rawValue: 1 << 20)
    /// View layer: a new load on a target does not cancel the one already running.
    public static let avoidAutoCancelImage = WebImageOptions(rawValue: 1 << 21)
    /// Store the result in memory only, never on disk.
    public static let cacheMemoryOnly = WebImageOptions(rawValue: 1 << 22)
    /// Complete a memory hit synchronously, on the calling thread, before `loadImage`
    /// returns. Without it every completion runs on the callback queue.
    public static let queryMemorySync = WebImageOptions(rawValue: 1 << 23)
    /// Store the result (and the downloaded original) on disk only, never in memory, so
    /// a batch job's decoded images do not pile up in the memory cache. With
    /// ``cacheMemoryOnly`` nothing is stored. Disk hits are still decoded as usual.
    public static let avoidMemoryCache = WebImageOptions(rawValue: 1 << 30)

    /// Every option by its name, as the command line's `--option NAME` takes them.
    public static let byName: [String: WebImageOptions] = [
        "retryFailed": .retryFailed, "lowPriority": .lowPriority, "progressiveLoad": .progressiveLoad,
        "refreshCached": .refreshCached, "continueInBackground": .continueInBackground,
        "handleCookies": .handleCookies, "allowInvalidSSLCertificates": .allowInvalidSSLCertificates,
        "highPriority": .highPriority, "delayPlaceholder": .delayPlaceholder,
        "transformAnimatedImage": .transformAnimatedImage, "avoidAutoSetImage": .avoidAutoSetImage,
        "scaleDownLargeImages": .scaleDownLargeImages, "queryMemoryData": .queryMemoryData,
        "queryMemoryDataSync": .queryMemoryDataSync, "queryDiskDataSync": .queryDiskDataSync,
        "fromCacheOnly": .fromCacheOnly, "fromLoaderOnly": .fromLoaderOnly,
        "avoidDecodeImage": .avoidDecodeImage, "decodeFirstFrameOnly": .decodeFirstFrameOnly,
        "preloadAllFrames": .preloadAllFrames, "waitStoreCache": .waitStoreCache,
        "avoidAutoCancelImage": .avoidAutoCancelImage, "cacheMemoryOnly": .cacheMemoryOnly,
        "queryMemorySync": .queryMemorySync,
        "avoidMemoryCache": .avoidMemoryCache,
    ]
}
