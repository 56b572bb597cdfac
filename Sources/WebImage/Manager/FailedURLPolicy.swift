import Foundation

/// How long failed URLs stay blocked and how many are remembered (see ``ImageManager``).
public struct FailedURLPolicy: Sendable, Hashable {
    /// Seconds a failed URL stays blocked. Default 3600 (one hour).
    ///
    /// Clamped to 0…2,592,000 (30 days); 0 or less (and NaN) disables the list.
    public var timeToLive: TimeInterval {
        didSet { timeToLive = Self.clampTTL(timeToLive) }
    }
    /// The most URLs remembered; the least recently used go first. Default 10,000.
    ///
    /// Clamped to 0…10,000,000; 0 disables the list.
    public var capacity: Int {
        didSet { capacity = min(max(capacity, 0), 10_000_000) }
    }

    /// A policy; values are clamped as the properties say.
    public init(timeToLive: TimeInterval = 3600, capacity: Int = 10_000) {
        self.timeToLive = Self.clampTTL(timeToLive)
        self.capacity = min(max(capacity, 0), 10_000_000)
    }

    private static func clampTTL(_ value: TimeInterval) -> TimeInterval {
        value.isNaN ? 0 : min(max(value, 0), 2_592_000)
    }
}

/// Which failures may put a URL on the block list: one classification for the manager and
/// the loaders' default policies.
extension FailedURLPolicy {
    /// Failures another attempt may cure, and the hop policy's refusals.
    private static let neverBlockedCodes: Set<WebImageError.Code> = [
        .cancelled, .timedOut, .cannotConnect, .cannotFindHost, .connectionLost, .forbiddenAddress, .sourceNotAllowed,
    ]

    /// Whether a loader's default policy (``ImageLoader/shouldBlockFailedURL(_:error:)``)
    /// leaves `error` off the list: a transient failure, a status worth retrying
    /// (``RetryPolicy/isRetryable(_:)``) or a refusal of the hop policy (which says nothing
    /// about the URL's server and must not make it look down).
    package static func isNeverBlocked(_ error: WebImageError) -> Bool {
        neverBlockedCodes.contains(error.code) || RetryPolicy.isRetryable(error)
    }

    /// Whether `error` may put a URL on the list at all, whatever a loader or delegate
    /// says: not what ``isNeverBlocked(_:)`` leaves off, nor a 304, a URL already blocked or a
    /// cache-only miss, which say nothing about the URL.
    package static func mayBlock(_ error: WebImageError) -> Bool {
        !isNeverBlocked(error) && ![.cacheNotModified, .blackListed, .notInCache].contains(error.code)
    }
}
