import Foundation

/// When and how often the downloader tries a transfer again after a transient failure.
///
/// Retried: timeouts, refused/reset/lost connections (including a body cut off
/// mid-way, which resumes with a `Range` request when the server allows), and the
/// statuses 408, 429, 500, 502, 503 and 504. Never retried: other 4xx, bad data,
/// cancellation, ``WebImageCodecs/WebImageError/Code/forbiddenAddress``, too-large responses.
///
/// The wait before retry *n* is "full jitter" exponential backoff, a random time in
/// `0…min(maxDelay, baseDelay · 2ⁿ⁻¹)`, unless the failed response carried `Retry-After`
/// (seconds or an HTTP date), which is waited instead, capped at ``maxRetryAfter``. No
/// retry starts once it would begin later than ``totalBudget`` after the first attempt.
///
/// Every caller that joined a transfer shares its retries: a coalesced transfer is
/// retried once for all of them, with the policy of the caller that started it
/// (``WebImageContext/retryPolicy``, else ``DownloaderConfig/retryPolicy``). The
/// waits are timers on an event loop, which cancellation withdraws at once.
///
/// Every value is clamped when set; each property says how.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included; 1 never retries. Default 1.
    ///
    /// Clamped to 1…100.
    public var maxAttempts: Int { didSet { maxAttempts = min(max(maxAttempts, 1), 100) } }
    /// The backoff's first step, in seconds. Default 0.25.
    ///
    /// Clamped to 0…60; NaN becomes the default.
    public var baseDelay: TimeInterval { didSet { baseDelay = Self.clamp(baseDelay, 0...60, default: 0.25) } }
    /// The longest backoff step, in seconds. Default 8.
    ///
    /// Clamped to 0…3600; NaN becomes the default.
    public var maxDelay: TimeInterval { didSet { maxDelay = Self.clamp(maxDelay, 0...3600, default: 8) } }
    /// The longest `Retry-After` waited, in seconds; longer ones wait this long. Default 30.
    ///
    /// Clamped to 0…3600; NaN becomes the default.
    public var maxRetryAfter: TimeInterval {
        didSet { maxRetryAfter = Self.clamp(maxRetryAfter, 0...3600, default: 30) }
    }
    /// Seconds from the first attempt's start after which no retry starts. Default 60.
    ///
    /// Clamped to 0…86400 (one day); NaN becomes the default, `.infinity` one day.
    public var totalBudget: TimeInterval { didSet { totalBudget = Self.clamp(totalBudget, 0...86_400, default: 60) } }

    /// A policy; every argument is clamped as its property says.
    public init(
        maxAttempts: Int = 1, baseDelay: TimeInterval = 0.25, maxDelay: TimeInterval = 8,
        maxRetryAfter: TimeInterval = 30, totalBudget: TimeInterval = 60
    ) {
        self.maxAttempts = min(max(maxAttempts, 1), 100)
        self.baseDelay = Self.clamp(baseDelay, 0...60, default: 0.25)
        self.maxDelay = Self.clamp(maxDelay, 0...3600, default: 8)
        self.maxRetryAfter = Self.clamp(maxRetryAfter, 0...3600, default: 30)
        self.totalBudget = Self.clamp(totalBudget, 0...86_400, default: 60)
    }

    /// No retries: the default.
    public static let none = RetryPolicy()

    /// `retries` retries (so `retries + 1` attempts) with the default backoff.
    public static func retries(_ retries: Int) -> RetryPolicy {
        RetryPolicy(maxAttempts: retries >= 99 ? 100 : max(retries, 0) + 1)
    }

    /// The HTTP statuses worth another attempt.
    public static let retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// Whether a failure is transient, so another attempt may succeed.
    public static func isRetryable(_ error: WebImageError) -> Bool {
        switch error.code {
        case .timedOut, .cannotConnect, .connectionLost: return true
        case .invalidDownloadStatusCode: return error.httpStatusCode.map(retryableStatuses.contains) ?? false
        default: return false
        }
    }

    /// The wait before retry number `retry` (1 for the first retry): `Retry-After` capped
    /// at ``maxRetryAfter`` when the server sent one, else full-jitter backoff.
    /// `random` picks a number in a range (injectable for tests).
    func delay(
        beforeRetry retry: Int, retryAfter: TimeInterval?,
        random: (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
    ) -> TimeInterval {
        if let retryAfter { return min(max(retryAfter, 0), maxRetryAfter) }
        let exponent = Double(min(max(retry - 1, 0), 62))
        let ceiling = min(maxDelay, baseDelay * pow(2, exponent))
        return ceiling > 0 ? random(0...ceiling) : 0
    }

    /// Seconds to wait from a `Retry-After` value: a number of seconds or an HTTP date
    /// (relative to `now`); `nil` when it is neither. Past dates give 0.
    public static func retryAfterSeconds(_ value: String, now: Date = Date()) -> TimeInterval? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text) { return TimeInterval(max(seconds, 0)) }
        guard let date = HTTPDate.parse(text) else { return nil }
        return max(date.timeIntervalSince(now), 0)
    }

    private static func clamp(_ value: Double, _ range: ClosedRange<Double>, default fallback: Double) -> Double {
        value.isNaN ? fallback : min(max(value, range.lowerBound), range.upperBound)
    }
}
