import Synchronization

/// Admission to a resource of fixed capacity, in units: transform slots (one unit per
/// request) or bytes of decoded pixels (a request's planned peak). A caller that does not
/// fit waits in a line of at most ``maxWaiting`` callers; past that it is refused at once
/// with ``ProxyError/overloaded`` (503, `Retry-After`), so overload costs neither memory
/// nor latency. A waiter whose task is cancelled (its client went away, its deadline
/// passed) leaves the line at once, and one that waited ``maxWait`` is refused.
///
/// Waiters are admitted in arrival order: a large request at the head is not overtaken
/// by small ones (no starvation). A single request larger than the whole capacity is
/// admitted when nothing else holds units, so it runs alone rather than never.
///
/// State is a few counters and continuations behind a `Mutex`; continuations are resumed
/// after the lock is released. Waiting suspends the task; no thread blocks.
final class ResourceGate: Sendable {
    /// Units available in all.
    let capacity: Int
    /// Callers that may wait.
    let maxWaiting: Int
    /// Longest wait before a refusal.
    let maxWait: Duration

    private struct Waiter {
        var id: UInt64
        var units: Int
        var continuation: CheckedContinuation<Bool, Never>
    }
    private struct State {
        var used = 0
        var nextID: UInt64 = 0
        var waiters: [Waiter] = []
        var waited = 0
    }
    private let state = Mutex(State())

    init(capacity: Int, maxWaiting: Int, maxWait: Duration = .seconds(3600)) {
        self.capacity = max(1, capacity)
        self.maxWaiting = max(0, maxWaiting)
        self.maxWait = maxWait
    }

    /// Units held now (tests, metrics).
    var usedUnits: Int { state.withLock { $0.used } }
    /// Callers waiting now.
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Runs `work` holding `units`, waiting for them if needed; they are returned however
    /// `work` ends.
    ///
    /// - Throws: ``ProxyError/overloaded`` when the line is full or the wait took
    ///   ``maxWait``; ``ProxyError/clientClosedRequest`` when the task was cancelled while waiting.
    func run<T: Sendable>(units: Int, _ work: () async -> T) async throws(ProxyError) -> T {
        try await acquire(units)
        defer { release(units) }
        return await work()
    }

    /// Callers that had to wait before they were admitted, since the gate was made.
    var admittedAfterWaiting: Int { state.withLock { $0.waited } }

    private func fits(_ units: Int, _ s: State) -> Bool {
        s.used + units <= capacity || s.used == 0
    }

    func acquire(_ units: Int) async throws(ProxyError) {
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
        case .refuse: throw .overloaded
        case .wait(let assigned): id = assigned
        }
        let maxWait = self.maxWait
        // The timer ends the wait like a cancellation, but answers `overloaded`.
        let timer = Task { [weak self] in
            try? await Task.sleep(for: maxWait)
            if !Task.isCancelled { self?.withdraw(id) }
        }
        defer { timer.cancel() }
        let admitted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let ready = state.withLock { s -> Bool? in
                    if Task.isCancelled { return false }
                    // Units may have been freed between the two locks.
                    if s.waiters.isEmpty, fits(units, s) {
                        s.used += units
                        return true
                    }
                    s.waiters.append(Waiter(id: id, units: units, continuation: continuation))
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            withdraw(id)
        }
        guard admitted else {
            throw Task.isCancelled ? .clientClosedRequest : .overloaded
        }
    }

    /// Takes waiter `id` out of the line (cancelled or timed out); it is not admitted.
    private func withdraw(_ id: UInt64) {
        let (removed, admitted) = state.withLock { s -> (Waiter?, [Waiter]) in
            guard let index = s.waiters.firstIndex(where: { $0.id == id }) else { return (nil, []) }
            let removed = s.waiters.remove(at: index)
            // The head may now fit.
            return (removed, Self.admit(&s, capacity: capacity))
        }
        removed?.continuation.resume(returning: false)
        for waiter in admitted { waiter.continuation.resume(returning: true) }
    }

    /// Gives `units` back and admits the waiters that now fit, in order.
    func release(_ units: Int) {
        let admitted = state.withLock { s -> [Waiter] in
            s.used -= max(0, units)
            return Self.admit(&s, capacity: capacity)
        }
        for waiter in admitted { waiter.continuation.resume(returning: true) }
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
