import Synchronization

/// Runs one piece of work per key at a time: callers asking for a key whose work is
/// running wait for that work's result instead of starting their own.
///
/// The work runs on the first caller's own task, as Go's `singleflight` does: no task is
/// started. Joiners wait on a ``FirstOf`` box (each with its own deadline, a timer) and
/// stop waiting at once when cancelled or timed out, while the work goes on for the
/// others. When the first caller is cancelled, its work is too (it runs on its task), and
/// the longest-waiting joiner takes over and runs the work again on its own task, so
/// joiners still get an answer; with nobody waiting, the key is free at once.
///
/// A run that must outlive every caller (the library's shared transfers) is not this
/// type's job: the work would need a task of its own.
///
/// State is a `Mutex`; no work and no resume runs under it.
package final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// What a waiter is told.
    private enum Answer: Sendable {
        case value(Value)
        /// The caller running the work here left: this waiter runs it now.
        case lead
        case failed(WaitError)
    }
    private struct Entry {
        /// The id of the caller whose run this is: tells this run from a later one.
        var generation: UInt64
        var waiters: [UInt64: FirstOf<Answer>] = [:]
    }
    private struct State {
        var entries: [Key: Entry] = [:]
        var nextID: UInt64 = 0
        var started = 0
    }
    private let state = Mutex(State())

    /// An empty single-flight.
    package init() {}

    /// Keys with work running (tests, metrics).
    package var runningCount: Int { state.withLock { $0.entries.count } }
    /// How many times work was started, takeovers included (tests: joiners start none).
    package var startedCount: Int { state.withLock { $0.started } }
    /// Callers waiting on `key`'s run (tests: a joiner has joined).
    package func waitingCount(forKey key: Key) -> Int { state.withLock { $0.entries[key]?.waiters.count ?? 0 } }
    /// Callers waiting on any key (tests: a joiner has joined a run whose key the test
    /// cannot spell).
    package var waitingCount: Int { state.withLock { $0.entries.values.reduce(0) { $0 + $1.waiters.count } } }

    /// The result of `work` for `key`, run now on this task or joined if
    /// already running.
    ///
    /// - Parameter deadline: when this caller stops waiting; the work goes on for the
    ///   others. It does not bound a first caller running the work on its own task.
    /// - Throws: ``WaitError/cancelled`` when the calling task was cancelled (a caller
    ///   running the work on its task gets it once the work returns), ``WaitError/timedOut``
    ///   at `deadline`.
    package func value(
        forKey key: Key, deadline: ContinuousClock.Instant? = nil, _ work: @Sendable () async -> Value
    ) async throws(WaitError) -> Value {
        if Task.isCancelled { throw .cancelled }
        let id = makeID()
        // The common case, an idle key, claims it without a continuation.
        let claimed = state.withLock { s -> Bool in
            guard s.entries[key] == nil else { return false }
            s.entries[key] = Entry(generation: id)
            s.started += 1
            return true
        }
        if claimed { return try await lead(key, id, work) }
        switch await wait(key, id, deadline: deadline) {
        case .value(let value): return value
        case .failed(let error): throw error
        case .lead: return try await lead(key, id, work)
        }
    }

    // MARK: Running

    private func makeID() -> UInt64 {
        state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
    }

    /// Joins `key`'s run as waiter `id`, or (when the run ended since the first look) is
    /// told to run the next one itself (``Answer/lead``).
    private func wait(_ key: Key, _ id: UInt64, deadline: ContinuousClock.Instant?) async -> Answer {
        let answer = await FirstOf<Answer>.value(
            deadline: deadline, timedOut: { .failed(.timedOut) }, cancelled: { .failed(.cancelled) }
        ) { box in
            let starts = state.withLock { s -> Bool in
                if s.entries[key] != nil {
                    s.entries[key]?.waiters[id] = box
                    return false
                }
                s.entries[key] = Entry(generation: id)
                s.started += 1
                return true
            }
            // The run ended between the first look and now: this caller runs the next.
            if starts, !box.resume(.lead) { handOver(key, from: id) }
        }
        if case .failed = answer { leave(key, id) }
        return answer
    }

    /// Runs `work` on this task for `key`'s run `id`; a cancellation hands the run to a waiter.
    private func lead(_ key: Key, _ id: UInt64, _ work: @Sendable () async -> Value) async throws(WaitError) -> Value {
        let value = await withTaskCancellationHandler {
            await work()
        } onCancel: {
            handOver(key, from: id)
        }
        let waiting = state.withLock { s -> [FirstOf<Answer>]? in
            guard s.entries[key]?.generation == id else { return nil }
            return s.entries.removeValue(forKey: key).map { Array($0.waiters.values) } ?? []
        }
        // The run was handed over: this caller left.
        guard let waiting else { throw .cancelled }
        for waiter in waiting { waiter.resume(.value(value)) }
        return value
    }

    /// The run `from` is leaving: the longest-waiting joiner takes it over; with none,
    /// the key is freed for the next caller.
    private func handOver(_ key: Key, from id: UInt64) {
        var leaving = id
        while true {
            let next = state.withLock { s -> (UInt64, FirstOf<Answer>)? in
                guard var entry = s.entries[key], entry.generation == leaving else { return nil }
                guard let heir = entry.waiters.keys.min(), let box = entry.waiters.removeValue(forKey: heir) else {
                    s.entries[key] = nil
                    return nil
                }
                entry.generation = heir
                s.entries[key] = entry
                s.started += 1
                return (heir, box)
            }
            guard let (heir, box) = next else { return }
            if box.resume(.lead) { return }
            // That waiter had just left (cancelled, timed out): the next one, then.
            leaving = heir
        }
    }

    /// Takes waiter `id` off `key`'s run; the run goes on for the caller running it.
    private func leave(_ key: Key, _ id: UInt64) {
        state.withLock { s in
            guard s.entries[key]?.waiters[id] != nil else { return }
            s.entries[key]?.waiters[id] = nil
        }
    }
}
