import Synchronization

/// Runs one piece of work per key at a time: callers asking for a key whose work is
/// running wait for that work's result instead of starting their own.
///
/// Where the work runs is chosen once, at ``init(runningWork:)``:
///
/// - ``Placement/ownTask`` runs it in a task of its own, so a caller that gives
///   up (its task is cancelled, its deadline passed) stops waiting at once while the work
///   goes on for the others; when the last waiter gives up, the work is cancelled (a
///   render nobody waits for frees its slot and memory instead of finishing for an empty
///   room), and a later caller for the key starts anew.
/// - ``Placement/firstCaller`` runs it on the first caller's own task, as
///   Go's `singleflight` does: no task is started. Joiners wait as above. When the first
///   caller is cancelled, its work is too (it runs on its task), and the longest-waiting
///   joiner takes over and runs the work again on its own task, so joiners still get an
///   answer; with nobody waiting, the key is free at once.
///
/// Waiting starts no task of its own: each waiter is a ``FirstOf`` box resumed by the
/// work, by its ``DeadlineTimer`` or by its cancellation. State is a `Mutex`; no work and
/// no resume runs under it.
package final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Where the work runs.
    package enum Placement: Sendable {
        /// In a task of its own, which outlives any one caller.
        case ownTask
        /// On the first caller's task; a waiter takes over when that caller leaves.
        case firstCaller
    }

    /// Where this single-flight runs its work.
    package let placement: Placement
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
        /// The work's task, when it has one.
        var task: Task<Void, Never>?
    }
    private struct State {
        var entries: [Key: Entry] = [:]
        var nextID: UInt64 = 0
        var started = 0
        var tasks = 0
    }
    private let state = Mutex(State())

    /// A single-flight whose work runs as `placement` says.
    package init(runningWork placement: Placement = .ownTask) {
        self.placement = placement
    }

    /// Keys with work running (tests, metrics).
    package var runningCount: Int { state.withLock { $0.entries.count } }
    /// How many times work was started, takeovers included (tests: joiners start none).
    package var startedCount: Int { state.withLock { $0.started } }
    /// How many tasks were started for work (tests: none when it runs here).
    package var tasksStarted: Int { state.withLock { $0.tasks } }

    /// The result of `work` for `key`, started now (as ``placement`` says) or joined if
    /// already running.
    ///
    /// - Parameter deadline: when this caller stops waiting; the work goes on for the
    ///   others. It does not bound a first caller running the work on its own task.
    /// - Throws: ``WaitError/cancelled`` when the calling task was cancelled (a caller
    ///   running the work on its task gets it once the work returns), ``WaitError/timedOut``
    ///   at `deadline`.
    package func value(
        forKey key: Key, deadline: ContinuousClock.Instant? = nil, _ work: @escaping @Sendable () async -> Value
    ) async throws(WaitError) -> Value {
        if Task.isCancelled { throw .cancelled }
        let id = makeID()
        if placement == .firstCaller {
            // The common case, an idle key, claims it without a continuation.
            let claimed = state.withLock { s -> Bool in
                guard s.entries[key] == nil else { return false }
                s.entries[key] = Entry(generation: id)
                s.started += 1
                return true
            }
            if claimed { return try await lead(key, id, work) }
        }
        switch await wait(key, id, deadline: deadline, work) {
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

    /// Joins `key`'s run as waiter `id`, or (when none runs) starts one: in a task, or by
    /// answering ``Answer/lead``.
    private func wait(
        _ key: Key, _ id: UInt64, deadline: ContinuousClock.Instant?, _ work: @escaping @Sendable () async -> Value
    ) async -> Answer {
        let answer = await FirstOf<Answer>.value(
            deadline: deadline, timedOut: { .failed(.timedOut) }, cancelled: { .failed(.cancelled) }
        ) { box in
            let starts = state.withLock { s -> Bool in
                if s.entries[key] != nil {
                    s.entries[key]?.waiters[id] = box
                    return false
                }
                s.entries[key] = placement == .ownTask ? Entry(generation: id, waiters: [id: box]) : Entry(generation: id)
                s.started += 1
                return true
            }
            guard starts else { return }
            switch placement {
            case .ownTask: start(key, generation: id, work)
            case .firstCaller:
                // The run ended between the first look and now: this caller runs the next.
                if !box.resume(.lead) { handOver(key, from: id) }
            }
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

    private func start(_ key: Key, generation: UInt64, _ work: @escaping @Sendable () async -> Value) {
        let task = Task {
            let value = await work()
            let waiting = self.state.withLock { s -> [FirstOf<Answer>] in
                guard s.entries[key]?.generation == generation else { return [] }
                return s.entries.removeValue(forKey: key).map { Array($0.waiters.values) } ?? []
            }
            for waiter in waiting { waiter.resume(.value(value)) }
        }
        let kept = state.withLock { s -> Bool in
            s.tasks += 1
            guard s.entries[key]?.generation == generation else { return false }
            s.entries[key]?.task = task
            return true
        }
        // Every waiter left before the task was recorded.
        if !kept { task.cancel() }
    }

    /// Takes waiter `id` off `key`'s run. The last one to leave a run in a task of its own
    /// cancels it; a run here goes on for the caller running it.
    private func leave(_ key: Key, _ id: UInt64) {
        let orphaned = state.withLock { s -> Task<Void, Never>? in
            guard let entry = s.entries[key], entry.waiters[id] != nil else { return nil }
            s.entries[key]?.waiters[id] = nil
            guard placement == .ownTask, entry.waiters.count == 1 else { return nil }
            return s.entries.removeValue(forKey: key)?.task
        }
        orphaned?.cancel()
    }
}
