import WebImage

extension ProxyError {
    /// A refused admission to a transform slot or to the memory budget: the line was full
    /// or the wait took too long (503, `Retry-After`), or the client went away.
    init(admission: WaitError) {
        self = admission == .cancelled ? .clientClosedRequest : .overloaded
    }

    /// A request that stopped waiting for its shared render or fetch: the request timeout
    /// passed (504), or the client went away.
    init(waiting: WaitError) {
        self = waiting == .timedOut ? .requestTimedOut : .clientClosedRequest
    }
}

extension AdmissionGate {
    /// ``run(units:deadline:_:)`` with the proxy's errors: a wait that reaches the
    /// request's `deadline` is the request timing out (504), one that reaches the gate's
    /// own ``maxWait`` first is an overload (503).
    func admit<T: Sendable>(
        units: Int, deadline: ContinuousClock.Instant? = nil, _ work: () async -> T
    ) async throws(ProxyError) -> T {
        do {
            return try await run(units: units, deadline: deadline, work)
        } catch {
            if error == .timedOut, let deadline, ContinuousClock.now >= deadline { throw .requestTimedOut }
            throw ProxyError(admission: error)
        }
    }
}
