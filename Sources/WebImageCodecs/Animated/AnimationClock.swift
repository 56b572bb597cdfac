/// The time source an ``AnimatedImagePlayer`` plays by.
///
/// Production code uses ``SystemAnimationClock``; tests inject a clock they advance by
/// hand, so frame timing, skipping and pausing are checked without real waiting.
public protocol AnimationClock: Sendable {
    /// The time elapsed since a fixed point of this clock.
    func now() -> Duration
    /// Suspends until ``now()`` reaches `deadline` (at once when it already has).
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    func sleep(until deadline: Duration) async throws
}

/// The monotonic system clock (`ContinuousClock`), which keeps counting while the
/// machine sleeps.
public struct SystemAnimationClock: AnimationClock {
    private let origin = ContinuousClock.now

    public init() {}

    public func now() -> Duration {
        origin.duration(to: .now)
    }

    public func sleep(until deadline: Duration) async throws {
        try await ContinuousClock().sleep(until: origin.advanced(by: deadline), tolerance: .milliseconds(1))
    }
}
