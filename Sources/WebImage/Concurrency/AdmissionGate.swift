import Synchronization

/// Admission to a resource of fixed capacity, in units: slots (one unit per caller) or
/// bytes (a caller's planned peak). A caller that does not fit waits in a line of at most
/// ``maxWaiting`` callers; past that it is refused at once with ``WaitError/lineFull``, so
/// overload costs neither memory nor latency. A waiter whose task is cancelled leaves the
/// line at once (``WaitError/cancelled``), and one that waited ``maxWait``, or past the
/// deadline it brought, is refused with ``WaitError/timedOut``.
///
/// Waiters are admitted in arrival order: a large caller at the head is not overtaken by
/// small ones (no starvation). A single caller larger than the whole capacity is admitted
/// when nothing else holds units, so it runs alone rather than never.
///
/// State is a few counters and waiters behind a `Mutex`; waiters are resumed after the
/// lock is released. Waiting suspends the task and arms one ``DeadlineTimer``; no thread
/// blocks and no task is started.
package final class AdmissionGate: Sendable {
    /// Units available in all.
    package let capacity: Int
    /// Callers that may wait.
    package let maxWaiting: Int
    /// Longest wait before a refusal.
    package let maxWait: Duration

    private struct Waiter {
        var id: UInt64
        var units: Int
        var box: FirstOf<Result<Void, WaitError>>
    }
    private struct State {
        var used = 0
        var nextID: UInt64 = 0
        var waiters: [Waiter] = []
        var waited = 0
    }
    private let state = Mutex(State())

    /// A gate of `capacity` units (at least 1) with a line of `maxWaiting` callers (at least 0).
    package init(capacity: Int, maxWaiting: Int, maxWait: Duration = .seconds(3600)) {
        self.capacity = max(1, capacity)
        self.maxWaiting = max(0, maxWaiting)
        self.maxWait = maxWait
    }

    /// Units held now (tests, metrics).
    package var usedUnits: Int { state.withLock { $0.used } }
    /// Callers waiting now.
    package var waitingCount: Int { state.withLock { $0.waiters.count } }
    /// Callers that had to wait before they were admitted, since the gate was made.
    package var admittedAfterWaiting: Int { state.withLock { $0.waited } }

    /// Runs `work` holding `units`, waiting for them if needed; they are returned however
    /// `work` ends. `work` runs on the calling task.
    package func run<T: Sendable>(
        units: Int, deadline: ContinuousClock.Instant? = nil, _ work: () async -> T
    ) async throws(WaitError) -> T {
        try await acquire(units, deadline: deadline)
        defer { release(units) }
        return await work()
    }

    /// Takes `units`, waiting in line for them if needed, until ``maxWait`` or `deadline`
    /// (whichever is sooner). Give them back with ``release(_:)``.
    package func acquire(_ units: Int, deadline: ContinuousClock.Instant? = nil) async throws(WaitError) {
        let units = max(0, units)
        enum Decision { case go, wait(UInt64), refuse }
        let decision = state.withLock { s -> Decision in
            if s.waiters.isEmpty, fits(units, s) {
                s.used += units
                return .go
            }
            guard s.waiters.count < maxWaiting else { return .refuse }
            s.nextID += 1
            return .wait(s.nextID)
        }
        let id: UInt64
        switch decision {
        case .go: return
        case .refuse: throw .lineFull
        case .wait(let assigned): id = assigned
        }
        let limit = ContinuousClock.now + maxWait
        // False when the wait ended (cancelled) before the line was even joined.
        var joined = false
        let result = await FirstOf<Result<Void, WaitError>>.value(
            deadline: deadline.map { min($0, limit) } ?? limit,
            timedOut: { .failure(.timedOut) }, cancelled: { .failure(.cancelled) }
        ) { box in
            joined = true
            let admitted = state.withLock { s -> Bool in
                // Units may have been freed between the two locks.
                if s.waiters.isEmpty, fits(units, s) {
                    s.used += units
                    return true
                }
                s.waiters.append(Waiter(id: id, units: units, box: box))
                return false
            }
            if admitted { box.resume(.success(())) }
        }
        if case .failure = result, joined { withdraw(id, units: units) }
        try result.get()
    }

    /// Gives `units` back and admits the waiters that now fit, in order.
    package func release(_ units: Int) {
        let admitted = state.withLock { s -> [Waiter] in
            s.used -= max(0, units)
            return Self.admit(&s, capacity: capacity)
        }
        resume(admitted)
    }

    private func fits(_ units: Int, _ s: State) -> Bool {
        s.used + units <= capacity || s.used == 0
    }

    /// Takes waiter `id`, whose wait ended without admission, out of the line. If it was
    /// admitted in the meantime (the admission lost the race to the timer or the
    /// cancellation), its units go back.
    private func withdraw(_ id: UInt64, units: Int) {
        let admitted = state.withLock { s -> [Waiter] in
            if let index = s.waiters.firstIndex(where: { $0.id == id }) {
                s.waiters.remove(at: index)
            } else {
                s.used -= units
            }
            // The head may now fit.
            return Self.admit(&s, capacity: capacity)
        }
        resume(admitted)
    }

    /// Resumes admitted waiters; one whose wait already ended gives its units back in
    /// ``withdraw(_:units:)``.
    private func resume(_ admitted: [Waiter]) {
        for waiter in admitted { waiter.box.resume(.success(())) }
    }

    private static func admit(_ s: inout State, capacity: Int) -> [Waiter] {
        var admitted: [Waiter] = []
        while let head = s.waiters.first, s.used + head.units <= capacity || s.used == 0 {
            s.used += head.units
            s.waited += 1
            admitted.append(s.waiters.removeFirst())
        }
        return admitted
    }
}
