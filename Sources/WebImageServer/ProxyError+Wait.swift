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
    /// ``run(units:deadline:_:)`` with the proxy's errors.
    func admit<T: Sendable>(units: Int, _ work: () async -> T) async throws(ProxyError) -> T {
        do {
            return try await run(units: units, work)
        } catch {
            throw ProxyError(admission: error)
        }
    }
}
