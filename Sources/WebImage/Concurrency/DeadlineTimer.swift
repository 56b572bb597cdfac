import NIOCore
import NIOPosix

/// A one-shot timer: runs a short closure at an instant, on one of NIO's singleton event
/// loops, unless cancelled first.
///
/// It replaces a sleeping task per wait (`Task { try await Task.sleep(…); … }`): arming
/// it schedules an entry in an event loop's timer heap, with no task, no stack and no hop
/// onto the cooperative pool. The closure runs on the event loop, so it must only resume
/// continuations or flip state: never block, never call user code.
package struct DeadlineTimer: Sendable {
    private let scheduled: Scheduled<Void>

    /// Runs `body` at `deadline` (at once if it has passed).
    package init(at deadline: ContinuousClock.Instant, _ body: @escaping @Sendable () -> Void) {
        let remaining = ContinuousClock.now.duration(to: deadline)
        let nanoseconds = remaining <= .zero ? 0 : Self.nanoseconds(remaining)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        scheduled = loop.scheduleTask(in: .nanoseconds(nanoseconds)) { body() }
    }

    /// Stops the timer; does nothing once it fired.
    package func cancel() { scheduled.cancel() }

    /// `duration` in nanoseconds, capped at a day (longer waits are not timeouts).
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds < 86_400 else { return 86_400 * 1_000_000_000 }
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
