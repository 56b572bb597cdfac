import Synchronization
import WebImage

/// Politeness per host: at most ``limit`` requests to one host at once, at most
/// ``ratePerSecond`` request starts per second to it, and a pause after it answers
/// 429 or 503 (its `Retry-After`, else a backoff that doubles from one second), during
/// which nothing new is sent to it.
///
/// A host that answers 429 or 503 ``giveUpAfter`` times in a row is given up on: the
/// job's remaining samples from it fail at once with its last answer, so one refusing
/// host cannot hold the end of the job (img2dataset has no such limits; it would keep
/// trying at full speed). The count lives in the host's record, so it starts again when
/// the host is forgotten (see Bounds).
///
/// Requests to one host start in arrival order: a caller that finds others waiting for
/// the host waits behind them.
///
/// **Bounds.** Waiters per host are at most the job's samples in flight (the job's
/// window); hosts are forgotten when nothing runs or waits for them, no pause is due and
/// no timer is pending. At most one timer per host is pending.
///
/// State is per-host counters and waiters behind a `Mutex`; waiters are resumed after
/// the lock is released, and no user code runs under it. A caller that may go at once
/// takes the lock once and does not suspend; release is a synchronous call. When only
/// time (a pause or the rate) holds a host's waiters back, the gate arms one
/// ``DeadlineTimer`` for the host (an entry in an event loop's timer heap): no task is
/// started and no thread sleeps.
///
/// A waiter's cancellation is ignored, as it was when the gate was an actor: nothing in
/// bulk mode cancels a sample's task, a wait is bounded (a pause is at most ``maxPause``),
/// and a cancelled caller that is let go still releases (``HostGatedFetcher`` releases on
/// every path), so no slot is lost.
final class HostGate: Sendable {
    /// How a request may go.
    enum Admission: Sendable, Equatable {
        case go
        /// The host was given up on; its last refusal.
        case refused(String)
    }

    /// The longest pause one answer can ask for, in seconds.
    static let maxPause: Double = 60
    /// Consecutive 429/503 answers after which a host is given up on.
    static let giveUpAfter = 8

    let limit: Int
    let ratePerSecond: Double?

    private struct Host {
        var active = 0
        var waiters: [CheckedContinuation<Admission, Never>] = []
        var head = 0
        var readyAt = ContinuousClock.now
        var refusals = 0
        var givenUp: String?
        /// A timer is pending for the host; its firing clears this and pumps.
        var hasTimer = false

        var waitingCount: Int { waiters.count - head }
    }

    /// What a pump decided, done after the lock is released.
    private struct Wake {
        var continuations: [CheckedContinuation<Admission, Never>] = []
        var admission = Admission.go
        /// When to arm the host's timer, if one is to be armed.
        var timerAt: ContinuousClock.Instant?
    }

    private let hosts = Mutex<[String: Host]>([:])

    init(limit: Int, ratePerSecond: Double?) {
        self.limit = max(1, limit)
        self.ratePerSecond = ratePerSecond.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }

    /// Hosts the gate remembers now (tests: idle hosts are forgotten).
    var hostCount: Int { hosts.withLock { $0.count } }

    /// Callers waiting for `host` now (tests).
    func waitingCount(_ host: String) -> Int { hosts.withLock { $0[host]?.waitingCount ?? 0 } }

    /// Waits until a request to `host` may start.
    func acquire(_ host: String) async -> Admission {
        // The fast path: the host may go now, so there is nothing to wait for.
        let now = hosts.withLock { hosts -> Admission? in
            var state = hosts[host] ?? Host()
            if let reason = state.givenUp { return .refused(reason) }
            let now = ContinuousClock.now
            guard state.waitingCount == 0, state.active < limit, state.readyAt <= now else { return nil }
            start(&state, now: now)
            hosts[host] = state
            return .go
        }
        if let now { return now }
        return await withCheckedContinuation { continuation in
            // The host may have changed since the first lock (a release, a forgotten
            // record): the pump decides afresh, and may let this waiter go at once.
            let wake = hosts.withLock { hosts -> Wake in
                hosts[host, default: Host()].waiters.append(continuation)
                return pump(host, &hosts)
            }
            perform(wake, host)
        }
    }

    /// Ends a request to `host`. `status` is the HTTP status it got (nil for a network
    /// failure); `retryAfter` the seconds its `Retry-After` asked for.
    func release(_ host: String, status: Int?, retryAfter: Double?, message: String?) {
        let wake = hosts.withLock { hosts -> Wake in
            guard var state = hosts[host] else { return Wake() }
            state.active -= 1
            if status == 429 || status == 503 {
                state.refusals += 1
                let backoff = retryAfter ?? Double(1 << min(state.refusals - 1, 6))
                let until = ContinuousClock.now + .milliseconds(Int(min(max(backoff, 0), Self.maxPause) * 1000))
                if until > state.readyAt { state.readyAt = until }
                if state.refusals >= Self.giveUpAfter { state.givenUp = message ?? "HTTP Error \(status ?? 0)" }
            } else if status != nil {
                state.refusals = 0
            }
            hosts[host] = state
            return pump(host, &hosts)
        }
        perform(wake, host)
    }

    private func start(_ state: inout Host, now: ContinuousClock.Instant) {
        state.active += 1
        if let ratePerSecond {
            let next = now + .nanoseconds(Int64(1e9 / ratePerSecond))
            if next > state.readyAt { state.readyAt = next }
        }
    }

    /// Under the lock: lets waiting requests go while the host's limits allow; asks for
    /// one timer when only time (a pause or the rate) holds them back; forgets an idle
    /// host. Resumes nothing itself: the returned ``Wake`` is performed after the lock.
    private func pump(_ host: String, _ hosts: inout [String: Host]) -> Wake {
        guard var state = hosts[host] else { return Wake() }
        var wake = Wake()
        if let reason = state.givenUp {
            wake.continuations = Array(state.waiters[state.head...])
            wake.admission = .refused(reason)
            state.waiters = []
            state.head = 0
        }
        var now = ContinuousClock.now
        while state.waitingCount > 0, state.active < limit, state.readyAt <= now {
            wake.continuations.append(state.waiters[state.head])
            state.head += 1
            start(&state, now: now)
            now = ContinuousClock.now
        }
        // Drops the admitted prefix once it is most of the array, so admitting stays O(1).
        if state.head > 64 && state.head * 2 > state.waiters.count {
            state.waiters.removeFirst(state.head)
            state.head = 0
        }
        if state.waitingCount > 0, state.active < limit, !state.hasTimer {
            state.hasTimer = true
            wake.timerAt = state.readyAt
        }
        // A host with a pending timer is kept until it fires, so a new record for the
        // host never has a second timer.
        if state.active == 0, state.waitingCount == 0, state.givenUp == nil, state.readyAt <= now, !state.hasTimer {
            hosts[host] = nil
        } else {
            hosts[host] = state
        }
        return wake
    }

    /// After the lock: arms the host's timer and resumes the waiters a pump let go.
    private func perform(_ wake: Wake, _ host: String) {
        if let deadline = wake.timerAt {
            // Weak: a pending timer must not keep a finished job's gate alive, so none
            // needs cancelling.
            _ = DeadlineTimer(at: deadline) { [weak self] in self?.timerFired(host) }
        }
        for continuation in wake.continuations { continuation.resume(returning: wake.admission) }
    }

    /// On the timer's event loop: the host's timer is spent; pump again.
    private func timerFired(_ host: String) {
        let wake = hosts.withLock { hosts -> Wake in
            hosts[host]?.hasTimer = false
            return pump(host, &hosts)
        }
        perform(wake, host)
    }
}
