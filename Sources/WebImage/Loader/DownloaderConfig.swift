import Dispatch
import Foundation

/// Settings of an ``ImageDownloader``, fixed when it is created.
///
/// Out-of-range values are clamped when set (at least one concurrent download, a
/// positive timeout, no negative limits).
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
    public var maxConcurrentDownloads = 6 { didSet { maxConcurrentDownloads = max(1, maxConcurrentDownloads) } }
    /// The start order of queued transfers of equal priority. Default ``ExecutionOrder/fifo``.
    public var executionOrder = ExecutionOrder.fifo

    // MARK: Timing

    /// Seconds one whole transfer may take, from connecting to the last byte; also the
    /// connect and read timeout. Default 15.
    public var downloadTimeout: TimeInterval = 15 { didSet { if !(downloadTimeout > 0) { downloadTimeout = 15 } } }
    /// Progress callbacks come at most this often (seconds); the last one always comes.
    /// Default 0.1.
    public var minimumProgressInterval: TimeInterval = 0.1 {
        didSet { minimumProgressInterval = max(0, minimumProgressInterval) }
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
    /// ``WebImageError/Code/tooManyRedirects``; 0 follows none. Loops, and redirects to a
    /// scheme other than http or https, fail at once with the same code. Default 10.
    public var maxRedirects = 10 { didSet { maxRedirects = max(0, maxRedirects) } }
    /// Whether a redirect may switch between http and https. Off by default: an https
    /// page must not be downgraded to plain text on the wire, and an http URL should not
    /// silently become a different security context either; such a redirect fails with
    /// ``WebImageError/Code/tooManyRedirects``. Credentials are dropped on such a hop.
    public var allowsCrossSchemeRedirects = false

    // MARK: Response checks

    /// Statuses that count as success; others fail with
    /// ``WebImageError/Code/invalidDownloadStatusCode``. Default 200–299.
    public var acceptableStatusCodes: Set<Int> = Set(200..<300)
    /// Media types (`"image/png"`, or `"image/*"` for a family) that count as success;
    /// others, or none, fail with ``WebImageError/Code/invalidDownloadContentType``.
    /// `nil`, the default, accepts any.
    public var acceptableContentTypes: Set<String>?
    /// Bodies larger than this fail with ``WebImageError/Code/responseTooLarge``, checked
    /// against `Content-Length` and while streaming. Default 100 MiB.
    public var maxResponseBytes = 100 * 1024 * 1024 { didSet { maxResponseBytes = max(0, maxResponseBytes) } }

    // MARK: Decoding and callbacks

    /// The coders used when a request's context names none. Default ``ImageCodersManager/shared``.
    public var coders: any ImageCoder = ImageCodersManager.shared
    /// Where decoding runs (never on a network thread). Default ``DecodeQueue/shared``.
    public var decodeQueue: DecodeQueue = .shared
    /// The queue callbacks run on when a request's context names none; `nil`, the
    /// default, gives each downloader its own serial queue.
    public var callbackQueue: DispatchQueue?

    /// The defaults listed on each property.
    public init() {}

    /// The defaults listed on each property.
    public static var `default`: DownloaderConfig { DownloaderConfig() }

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
