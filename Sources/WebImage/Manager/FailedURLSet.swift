import Foundation
import Synchronization

/// The URLs whose load failed in a way the loader calls permanent: SDWebImage's
/// `failedURLs`, made safe for processes that run for weeks. Thread-safe.
///
/// Loads of a listed URL fail with ``WebImageCodecs/WebImageError/Code/blackListed`` without touching
/// the network unless ``WebImageOptions/retryFailed`` is set. Unlike SDWebImage's set,
/// an entry remembers its error and **expires** (``FailedURLPolicy/timeToLive``), and the
/// list is **bounded** (``FailedURLPolicy/capacity``, least recently used out first), so
/// a server that saw an origin return 404 during a deploy recovers without a restart,
/// and a crawler's millions of dead links cannot grow it without limit. Transient errors
/// never enter (the manager checks, see ``ImageManager``).
final class FailedURLSet: Sendable {
    struct Entry: Sendable {
        var error: WebImageError
        var expires: Double
        var sequence: UInt64
    }
    private struct State {
        var entries: [URL: Entry] = [:]
        /// URLs in use order, oldest first, with the sequence they had then; stale pairs
        /// (a later use or a removal) are skipped when evicting.
        var order: [(url: URL, sequence: UInt64)] = []
        var head = 0
        var nextSequence: UInt64 = 0
    }
    private let state = Mutex(State())
    let policy: FailedURLPolicy
    /// Seconds on a monotonic clock; tests pass their own.
    private let now: @Sendable () -> Double

    init(policy: FailedURLPolicy = FailedURLPolicy(), now: (@Sendable () -> Double)? = nil) {
        self.policy = policy
        let start = ContinuousClock.now
        self.now = now ?? {
            let elapsed = start.duration(to: .now).components
            return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        }
    }

    /// The error that put `url` on the list, while its entry has not expired. A hit
    /// counts as a use for the LRU order.
    func entry(for url: URL) -> WebImageError? {
        let time = now()
        return state.withLock { s -> WebImageError? in
            guard let entry = s.entries[url] else { return nil }
            guard entry.expires > time else {
                s.entries[url] = nil
                return nil
            }
            s.nextSequence += 1
            s.entries[url]?.sequence = s.nextSequence
            s.order.append((url, s.nextSequence))
            Self.compact(&s)
            return entry.error
        }
    }

    func contains(_ url: URL) -> Bool { entry(for: url) != nil }

    /// Lists `url` with `error` for ``FailedURLPolicy/timeToLive``, evicting the least
    /// recently used entries beyond ``FailedURLPolicy/capacity``.
    func insert(_ url: URL, error: WebImageError) {
        guard policy.capacity > 0, policy.timeToLive > 0 else { return }
        let expires = now() + policy.timeToLive
        // The error's code, message and status say why; the response a refused status
        // carries (its headers) would make each of up to `capacity` entries weigh more.
        var error = error
        if error.underlyingError is ResponseCause { error.underlyingError = nil }
        state.withLock { s in
            s.nextSequence += 1
            s.entries[url] = Entry(error: error, expires: expires, sequence: s.nextSequence)
            s.order.append((url, s.nextSequence))
            while s.entries.count > policy.capacity, s.head < s.order.count {
                let (oldest, sequence) = s.order[s.head]
                s.head += 1
                if s.entries[oldest]?.sequence == sequence { s.entries[oldest] = nil }
            }
            Self.compact(&s)
        }
    }

    func remove(_ url: URL) { state.withLock { _ = $0.entries.removeValue(forKey: url) } }

    func removeAll() {
        state.withLock { s in
            s.entries = [:]
            s.order = []
            s.head = 0
        }
    }

    /// Listed URLs, expired ones not yet dropped included.
    var count: Int { state.withLock { $0.entries.count } }

    /// Drops the consumed prefix and stale pairs once the order list is mostly garbage,
    /// so it stays within a small multiple of the entry count.
    private static func compact(_ s: inout State) {
        guard s.order.count > 64, s.order.count > 2 * (s.entries.count + 1) else { return }
        s.order = s.order[s.head...].filter { s.entries[$0.url]?.sequence == $0.sequence }
        s.head = 0
    }
}

// MARK: - FailedURLPolicy

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
    /// Failures another attempt may cure, the hop policy's refusals, and the downloader's
    /// own refusals (shut down, a request modifier's veto), which SDWebImage's downloader
    /// does not block either.
    private static let neverBlockedCodes: Set<WebImageError.Code> = [
        .cancelled, .timedOut, .cannotConnect, .cannotFindHost, .connectionLost, .forbiddenAddress, .sourceNotAllowed,
        .invalidDownloadOperation,
    ]

    /// Whether a loader's default policy (``ImageLoader/shouldBlockFailedURL(_:error:)``)
    /// leaves `error` off the list: a transient failure, a status worth retrying
    /// (``RetryPolicy/isRetryable(_:)``), a refusal of the hop policy (which says nothing
    /// about the URL's server and must not make it look down) or of the downloader itself
    /// (``WebImageCodecs/WebImageError/Code/invalidDownloadOperation``: shut down, or a
    /// request modifier's veto).
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
