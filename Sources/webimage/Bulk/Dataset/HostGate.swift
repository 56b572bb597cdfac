/// Politeness per host: at most ``limit`` requests to one host at once, at most
/// ``ratePerSecond`` request starts per second to it, and a pause after it answers
/// 429 or 503 (its `Retry-After`, else a backoff that doubles from one second), during
/// which nothing new is sent to it.
///
/// A host that answers 429 or 503 ``giveUpAfter`` times in a row is given up on: the
/// job's remaining samples from it fail at once with its last answer, so one refusing
/// host cannot hold the end of the job (img2dataset has no such limits; it would keep
/// trying at full speed).
///
/// **Bounds.** Waiters per host are at most the job's samples in flight (the job's
/// window); hosts are forgotten when nothing runs or waits for them and no pause is due.
/// An actor: callers hop onto it twice per request; no user code runs on it.
actor HostGate {
    /// How a request may go.
    enum Admission: Sendable {
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
        var hasTimer = false

        var waitingCount: Int { waiters.count - head }
    }

    private var hosts: [String: Host] = [:]

    init(limit: Int, ratePerSecond: Double?) {
        self.limit = max(1, limit)
        self.ratePerSecond = ratePerSecond.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }

    /// Waits until a request to `host` may start.
    func acquire(_ host: String) async -> Admission {
        var state = hosts[host] ?? Host()
        if let reason = state.givenUp { return .refused(reason) }
        let now = ContinuousClock.now
        if state.waitingCount == 0, state.active < limit, state.readyAt <= now {
            start(&state, now: now)
            hosts[host] = state
            return .go
        }
        return await withCheckedContinuation { continuation in
            state.waiters.append(continuation)
            hosts[host] = state
            pump(host)
        }
    }

    /// Ends a request to `host`. `status` is the HTTP status it got (nil for a network
    /// failure); `retryAfter` the seconds its `Retry-After` asked for.
    func release(_ host: String, status: Int?, retryAfter: Double?, message: String?) {
        guard var state = hosts[host] else { return }
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
        pump(host)
    }

    private func start(_ state: inout Host, now: ContinuousClock.Instant) {
        state.active += 1
        if let ratePerSecond {
            let next = now + .nanoseconds(Int64(1e9 / ratePerSecond))
            if next > state.readyAt { state.readyAt = next }
        }
    }

    /// Lets waiting requests go while the host's limits allow; arms one timer when only
    /// time (a pause or the rate) holds them back; forgets an idle host.
    private func pump(_ host: String) {
        guard var state = hosts[host] else { return }
        if let reason = state.givenUp {
            for continuation in state.waiters[state.head...] { continuation.resume(returning: .refused(reason)) }
            state.waiters = []
            state.head = 0
        }
        var now = ContinuousClock.now
        while state.waitingCount > 0, state.active < limit, state.readyAt <= now {
            let continuation = state.waiters[state.head]
            state.head += 1
            start(&state, now: now)
            continuation.resume(returning: .go)
            now = ContinuousClock.now
        }
        if state.head > 64 && state.head * 2 > state.waiters.count {
            state.waiters.removeFirst(state.head)
            state.head = 0
        }
        if state.waitingCount > 0, state.active < limit, !state.hasTimer {
            state.hasTimer = true
            let deadline = state.readyAt
            Task { [weak self] in
                try? await Task.sleep(until: deadline)
                await self?.timerFired(host)
            }
        }
        if state.active == 0, state.waitingCount == 0, state.givenUp == nil, state.readyAt <= now {
            hosts[host] = nil
        } else {
            hosts[host] = state
        }
    }

    private func timerFired(_ host: String) {
        hosts[host]?.hasTimer = false
        pump(host)
    }
}
