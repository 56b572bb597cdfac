/// Per-request options of an ``ImageLoader``: SDWebImage's downloader options.
///
/// The manager maps its ``WebImageOptions`` onto these. A request that joins a transfer
/// already running shares that transfer's network options (priority aside); its own
/// decode options (`scaleDownLargeImages`, `decodeFirstFrameOnly`, `avoidDecodeImage`,
/// `lazyAnimatedImage`, `progressiveLoad`) still apply to what it receives.
public struct DownloaderOptions: OptionSet, Sendable, Hashable {
    /// The option bits.
    public let rawValue: UInt32
    /// Creates options from their bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Queue after normal-priority downloads.
    public static let lowPriority = DownloaderOptions(rawValue: 1 << 0)
    /// Queue before normal-priority downloads.
    public static let highPriority = DownloaderOptions(rawValue: 1 << 1)
    /// Deliver partial images (`isFinished == false`) while bytes arrive.
    public static let progressiveLoad = DownloaderOptions(rawValue: 1 << 2)
    /// Make a conditional request with ``ImageLoaderContext/validators``
    /// (`If-None-Match`, `If-Modified-Since`); a 304 fails with
    /// ``WebImageCodecs/WebImageError/Code/cacheNotModified``.
    public static let useHTTPCache = DownloaderOptions(rawValue: 1 << 3)
    /// SDWebImage's name for the same conditional request as ``useHTTPCache``: the caller
    /// holds a cached copy and wants `cacheNotModified` rather than the same bytes again.
    public static let ignoreCachedResponse = DownloaderOptions(rawValue: 1 << 4)
    /// Send and store cookies in the downloader's in-memory cookie jar.
    public static let handleCookies = DownloaderOptions(rawValue: 1 << 5)
    /// Accept TLS certificates that do not verify (self-signed, expired). Insecure:
    /// uses a separate HTTP client with verification off.
    public static let allowInvalidSSLCertificates = DownloaderOptions(rawValue: 1 << 6)
    /// Decode large images smaller: at most ``ImageLoaderContext/defaultScaleDownLimitBytes``
    /// of pixels unless the decode options already set a limit.
    public static let scaleDownLargeImages = DownloaderOptions(rawValue: 1 << 7)
    /// Decode only the first frame of an animation.
    public static let decodeFirstFrameOnly = DownloaderOptions(rawValue: 1 << 8)
    /// Deliver the data only; no image is decoded.
    public static let avoidDecodeImage = DownloaderOptions(rawValue: 1 << 9)
    /// Decode an animation lazily: the image holds the poster frame and an
    /// ``WebImageCodecs/AnimatedImage`` for the rest (``WebImageCodecs/DecodedImage/decodingLazily(_:options:coder:)``).
    /// Still images decode as usual.
    public static let lazyAnimatedImage = DownloaderOptions(rawValue: 1 << 10)

    /// Whether the request asks for a conditional request.
    var isConditional: Bool { !isDisjoint(with: [.useHTTPCache, .ignoreCachedResponse]) }

    /// The queueing priority these options ask for.
    var priority: ImageLoadPriority {
        if contains(.highPriority) { return .high }
        if contains(.lowPriority) { return .low }
        return .normal
    }
}
