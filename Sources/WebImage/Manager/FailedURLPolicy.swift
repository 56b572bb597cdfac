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
