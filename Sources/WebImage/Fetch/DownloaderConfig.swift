import Foundation

/// Settings of an ``ImageDownloader``, fixed when it is created.
///
/// Out-of-range values are clamped when set, so no value can be out of range and no
/// later conversion (seconds to nanoseconds, counts to slots) can trap: each property's
/// documentation gives its range and what a value outside it becomes.
public struct DownloaderConfig: Sendable {
    /// The order queued downloads start in (after priority).
    public enum ExecutionOrder: Sendable, Hashable {
        /// First queued, first started (the default).
        case fifo
        /// Last queued, first started.
        case lifo
    }

    // MARK: Queueing

    /// How many transfers run at once; more wait in the queue. Default 6.
    ///
    /// Clamped to ``concurrencyRange`` (1…1024): 0 or less becomes 1, more than 1024 becomes 1024.
    public var maxConcurrentDownloads = 6 {
        didSet { maxConcurrentDownloads = Self.clamp(maxConcurrentDownloads, to: Self.concurrencyRange) }
    }
    /// How many transfers may wait in the queue for a free slot. A request that would add
    /// one more fails at once with ``WebImageCodecs/WebImageError/Code/cancelled`` (as a full
    /// line of the decode queue or the I/O pool does: the URL is not blocked, a later
    /// request may try again); a request for a transfer already queued or running joins it
    /// whatever the count. Default 100,000: far more than a screen or a prefetch list asks
    /// at once, and a bound on the memory waiting loads hold (their tasks and frames).
    ///
    /// Values below 1 become 1.
    public var maxQueuedDownloads = 100_000 {
        didSet { maxQueuedDownloads = max(1, maxQueuedDownloads) }
    }
    /// The start order of queued transfers of equal priority. Default ``ExecutionOrder/fifo``.
    public var executionOrder = ExecutionOrder.fifo
    /// HTTP/1.1 connections open to one host (scheme, host and port) at once; transfers
    /// beyond it wait for a free connection. HTTP/2 (negotiated over TLS when the server
    /// offers it) multiplexes every transfer to a host on one connection. `nil`, the
    /// default, allows as many as ``maxConcurrentDownloads``, and at least 8.
    ///
    /// Clamped to ``concurrencyRange`` (1…1024): 0 or less becomes 1, more than 1024 becomes 1024.
    public var maxConnectionsPerHost: Int? {
        didSet { maxConnectionsPerHost = maxConnectionsPerHost.map { Self.clamp($0, to: Self.concurrencyRange) } }
    }

    /// The per-host connection limit in effect (see ``maxConnectionsPerHost``).
    var effectiveConnectionsPerHost: Int { maxConnectionsPerHost ?? max(8, maxConcurrentDownloads) }

    // MARK: Timing

    /// Seconds one whole transfer may take, from connecting to the last byte; also the
    /// connect timeout. A server that stops sending is ended by this deadline (there is no
    /// separate read timeout, which could only fire later). Default 15.
    ///
    /// Clamped to ``timeoutRange`` (0.001…86400 s, one day): NaN, zero or a negative value
    /// becomes the default 15; a positive value under a millisecond becomes 0.001; more than
    /// a day, `.infinity` included, becomes 86400.
    public var downloadTimeout: TimeInterval = 15 {
        didSet { downloadTimeout = Self.clampedTimeout(downloadTimeout) }
    }
    /// Progress callbacks come at most this often (seconds); the last one always comes.
    /// Default 0.1.
    ///
    /// Clamped to 0…86400 s: NaN becomes the default 0.1, a negative value 0 (every
    /// chunk reports), more than a day (`.infinity` included) 86400.
    public var minimumProgressInterval: TimeInterval = 0.1 {
        didSet {
            minimumProgressInterval = minimumProgressInterval.isNaN
                ? 0.1 : min(max(minimumProgressInterval, 0), Self.timeoutRange.upperBound)
        }
    }

    // MARK: Request

    /// Headers sent with every request. Default `Accept: image/*,*/*;q=0.8` and
    /// `User-Agent: WebImage/<version>`.
    public var httpHeaders: HTTPHeaderFields = [
        "Accept": "image/*,*/*;q=0.8",
        "User-Agent": DownloaderConfig.userAgent,
    ]
    /// Changes or vetoes every request; a request's context may replace it. Default none.
    public var requestModifier: ImageDownloadRequestModifier?
    /// Changes or rejects every response; a request's context may replace it. Default none.
    public var responseModifier: ImageDownloadResponseModifier?
    /// HTTP Basic credentials sent with every request when both are set. Default none.
    public var username: String?
    /// See ``username``.
    public var password: String?
    /// Redirects (301, 302, 303, 307, 308) followed before failing with
    /// ``WebImageCodecs/WebImageError/Code/tooManyRedirects``; 0 follows none. Loops, and redirects to a
    /// scheme other than http or https, fail at once with the same code. Default 10.
    ///
    /// Clamped to 0…100: a negative value becomes 0, more than 100 becomes 100.
    public var maxRedirects = 10 { didSet { maxRedirects = Self.clamp(maxRedirects, to: 0...100) } }
    /// Whether a redirect may switch between http and https. Off by default: an https
    /// page must not be downgraded to plain text on the wire, and an http URL should not
    /// silently become a different security context either; such a redirect fails with
    /// ``WebImageCodecs/WebImageError/Code/tooManyRedirects``. Credentials are dropped on such a hop.
    public var allowsCrossSchemeRedirects = false

    // MARK: Retries

    /// How transient failures (timeouts, lost connections, 408, 429, 5xx gateway errors)
    /// are retried; a request's context may replace it. Default ``RetryPolicy/none``.
    public var retryPolicy = RetryPolicy.none

    // MARK: Security

    /// What is checked before the first request and every redirect hop: the source
    /// allowlist and the SSRF guard (see ``HopPolicy``). The default checks nothing (and
    /// is the shared downloader's); for URLs from untrusted input set both.
    public var hopPolicy = HopPolicy()

    // MARK: Response checks

    /// Statuses that count as success; others fail with
    /// ``WebImageCodecs/WebImageError/Code/invalidDownloadStatusCode``. Default 200–299.
    public var acceptableStatusCodes: Set<Int> = Set(200..<300)
    /// Media types (`"image/png"`, or `"image/*"` for a family) that count as success;
    /// others, or none, fail with ``WebImageCodecs/WebImageError/Code/invalidDownloadContentType``.
    /// `nil`, the default, accepts any.
    public var acceptableContentTypes: Set<String>?
    /// Bodies larger than this fail with ``WebImageCodecs/WebImageError/Code/responseTooLarge``, checked
    /// against `Content-Length` and while streaming. Default 100 MiB.
    ///
    /// A negative value becomes 0 (only empty bodies pass); there is no upper bound.
    public var maxResponseBytes = 100 * 1024 * 1024 { didSet { maxResponseBytes = max(0, maxResponseBytes) } }

    // MARK: Decoding

    /// The coders used when a request's context names none, for every body fetched through
    /// this downloader (stage B, an ``ImageManager``'s loads too). Default
    /// ``WebImageCodecs/ImageCodersManager/shared``.
    public var coders: any ImageCoder = ImageCodersManager.shared
    /// Where final and partial decodes of the bodies fetched through this downloader run
    /// (stage B, never on a network thread), and where coders are asked whether they
    /// decode incrementally; an ``ImageManager``'s loads through it too.
    /// Default ``WebImageCodecs/DecodeQueue/shared``.
    public var decodeQueue: DecodeQueue = .shared

    /// The defaults listed on each property.
    public init() {}

    /// The defaults listed on each property.
    public static var `default`: DownloaderConfig { DownloaderConfig() }

    /// The range ``maxConcurrentDownloads`` is clamped to: 1…1024.
    public static let concurrencyRange: ClosedRange<Int> = 1...1024

    /// The range ``downloadTimeout`` is clamped to, in seconds: one millisecond to one day.
    public static let timeoutRange: ClosedRange<TimeInterval> = 0.001...86_400

    /// `seconds` as a valid ``downloadTimeout``: NaN, zero and negative values give the
    /// default 15, others are clamped to ``timeoutRange`` (`.infinity` gives one day).
    static func clampedTimeout(_ seconds: TimeInterval) -> TimeInterval {
        seconds > 0 ? min(max(seconds, timeoutRange.lowerBound), timeoutRange.upperBound) : 15
    }

    /// `value`, or the nearer bound of `range` when it lies outside.
    private static func clamp(_ value: Int, to range: ClosedRange<Int>) -> Int {
        min(max(value, range.lowerBound), range.upperBound)
    }

    /// `WebImage/<version>`, the default `User-Agent`.
    public static let userAgent = "WebImage/0.1"

    /// Whether `mimeType` passes ``acceptableContentTypes``.
    func accepts(mimeType: String?) -> Bool {
        guard let acceptable = acceptableContentTypes else { return true }
        guard let mimeType else { return false }
        return acceptable.contains { pattern in
            let p = pattern.lowercased()
            if p == "*/*" || p == mimeType { return true }
            if p.hasSuffix("/*") { return mimeType.hasPrefix(p.dropLast()) }
            return false
        }
    }
}
