import Foundation

/// One stage of the image pipeline: a value by key, from the stage's cache, else made once
/// for every caller that asks for it at the same time, then stored.
///
/// The server's stages are instances of it: the source's bytes (cache of sources, one
/// transfer per URL), the rendered result (result cache, one render per key) and the
/// `/info` answer. Each stage is written once here, so its order is the same everywhere:
///
/// ```
/// memory (no suspension) ─ hit (not to be revalidated) → value
///   └─ single flight per key (joiners wait, each until its own deadline)
///        └─ stored value (memory, then disk) ─ hit (not to be revalidated) → value
///             └─ make (given the stored value when revalidating) → store what made says
/// ```
///
/// Threads: everything runs on the calling task; the first caller for a key runs the
/// lookup and `make` on its own task (``SingleFlight``), so a stage starts no task.
/// Joiners wait on a timer. A first caller that is cancelled cancels its `make`, and the
/// longest-waiting joiner runs it again on its own task.
///
/// Bounded: the single flight holds one entry per key being made, the cache its own limits.
package final class PipelineStage<Value: Sendable, Failure: Error>: Sendable {
    /// What `make` gives: the value, and what the stage's cache keeps of it.
    package struct Made: Sendable {
        package var value: Value
        package var store: Store

        package init(_ value: Value, store: Store = .value) {
            self.value = value
            self.store = store
        }
    }

    /// What the stage's cache keeps of a made value.
    package enum Store: Sendable {
        /// Nothing (the source said `no-store`, or the value is the stored one as it was).
        case none
        /// The value (``PipelineStageCache/store(_:forKey:)``).
        case value
        /// The stored value given back with new metadata and the same bytes, after a 304
        /// (``PipelineStageCache/renew(_:forKey:)``): the bytes are not written again.
        case metadata
    }

    private let cache: (any PipelineStageCache<Value>)?
    private let flight = SingleFlight<String, Result<Value, Failure>>()
    private let waitFailure: @Sendable (WaitError) -> Failure
    private let onStoredHit: @Sendable () -> Void

    /// - Parameters:
    ///   - cache: where made values are kept; `nil` for a stage that caches nothing.
    ///   - waitFailure: the error for a joiner that stopped waiting (cancelled, timed out).
    ///   - onStoredHit: called for each value answered from the cache (metrics).
    package init(
        cache: (any PipelineStageCache<Value>)?, waitFailure: @escaping @Sendable (WaitError) -> Failure,
        onStoredHit: @escaping @Sendable () -> Void = {}
    ) {
        self.cache = cache
        self.waitFailure = waitFailure
        self.onStoredHit = onStoredHit
    }

    /// Keys being made now (tests, metrics).
    package var runningCount: Int { flight.runningCount }
    /// How many times a lookup-and-make was started, takeovers included (tests: joiners start none).
    package var startedCount: Int { flight.startedCount }

    /// The value for `key`: from memory, else from the one run for `key` (joined if under
    /// way), which reads the cache's slower tier and, on a miss, calls `make`.
    ///
    /// - Parameters:
    ///   - deadline: when a joiner stops waiting (`waitFailure(.timedOut)`); it does not bound
    ///     the first caller, which `make` bounds by checking its own deadline.
    ///   - revalidating: which stored values are not answered as is (`nil`: none) but
    ///     handed to `make`, which may give one back (after a 304, with `store: .metadata`
    ///     when the 304 renewed it) or make a new one. Asked of a memory hit too.
    ///   - make: makes the value; runs on the first caller's task, at most once per key at a time.
    package func value(
        forKey key: String, deadline: ContinuousClock.Instant? = nil, revalidating: (@Sendable (Value) -> Bool)? = nil,
        make: @Sendable (_ stored: Value?) async throws(Failure) -> Made
    ) async throws(Failure) -> Value {
        try await value(forKey: key, in: cache, deadline: deadline, revalidating: revalidating, make: make)
    }

    /// ``value(forKey:deadline:revalidating:make:)`` kept in `cache` instead of the stage's
    /// own: the library's loads name their cache each (``ImageRequest/cache``).
    ///
    /// - Parameter shared: whether callers of `key` at the same time share one run, as in
    ///   the stage's own form (then they must share `cache` too). Unshared, the caller runs
    ///   the lookup and `make` itself, on its own task: a library load that keeps its own
    ///   progress and priority (the downloader shares its transfer underneath).
    package func value(
        forKey key: String, in cache: (any PipelineStageCache<Value>)?, shared: Bool = true,
        deadline: ContinuousClock.Instant? = nil, revalidating: (@Sendable (Value) -> Bool)? = nil,
        make: @Sendable (_ stored: Value?) async throws(Failure) -> Made
    ) async throws(Failure) -> Value {
        if let hit = cache?.memoryValue(forKey: key), revalidating?(hit) != true {
            onStoredHit()
            return hit
        }
        guard shared else { return try await run(key, in: cache, revalidating: revalidating, make: make).get() }
        return try await sharedValue(forKey: key, in: cache, deadline: deadline, revalidating: revalidating, make: make)
    }

    /// The run for `key` the callers share.
    // Out of line, so an unshared caller's frame, kept while `make` waits (for a
    // transfer), has no room for the flight's values.
    @inline(never)
    private func sharedValue(
        forKey key: String, in cache: (any PipelineStageCache<Value>)?, deadline: ContinuousClock.Instant?,
        revalidating: (@Sendable (Value) -> Bool)?, make: @Sendable (_ stored: Value?) async throws(Failure) -> Made
    ) async throws(Failure) -> Value {
        let result: Result<Value, Failure>
        do {
            result = try await flight.value(forKey: key, deadline: deadline) { [self] in
                await run(key, in: cache, revalidating: revalidating, make: make)
            }
        } catch {
            throw waitFailure(error)
        }
        return try result.get()
    }

    /// One run for `key`: the stored value, else `make`'s, stored as it says.
    private func run(
        _ key: String, in cache: (any PipelineStageCache<Value>)?, revalidating: (@Sendable (Value) -> Bool)?,
        make: @Sendable (_ stored: Value?) async throws(Failure) -> Made
    ) async -> Result<Value, Failure> {
        let stored = await cache?.storedValue(forKey: key)
        if let stored, revalidating?(stored) != true {
            onStoredHit()
            return .success(stored)
        }
        do throws(Failure) {
            let made = try await make(stored)
            switch made.store {
            case .none: break
            case .value: await cache?.store(made.value, forKey: key)
            case .metadata: await cache?.renew(made.value, forKey: key)
            }
            return .success(made.value)
        } catch {
            return .failure(error)
        }
    }
}

// MARK: - PipelineStageCache

/// Where a ``PipelineStage`` keeps the values it made: a memory tier read on the caller's
/// task without suspending, and a slower tier (disk) read inside the stage's single flight.
///
/// ``TieredCache`` is the one the server's stages use: a bounded ``MemoryCache`` in front
/// of a ``DiskCache``; it writes in the background. The library's originals are the disk
/// entries of its ``ImageCaching`` (``ImageCachingOriginals``), written before the store returns.
package protocol PipelineStageCache<Value>: Sendable {
    associatedtype Value: Sendable

    /// The value in memory, or `nil`. Never suspends and does no I/O: a stage asks it
    /// before joining or starting any work.
    func memoryValue(forKey key: String) -> Value?

    /// The value in memory, else in the slower tier (which then fills memory), or `nil`.
    func storedValue(forKey key: String) async -> Value?

    /// Keeps a value a stage made: in memory now; in the slower tier now or in the
    /// background, as the cache says. Called inside the stage's run for the key, so its
    /// joiners wait for what it awaits.
    func store(_ value: Value, forKey key: String) async

    /// Keeps a stored value a stage gave back with new metadata and the same bytes (a 304
    /// renewed it): in memory now, and in the slower tier only the metadata (now or in the
    /// background, as ``store(_:forKey:)``). An entry no longer there stays a miss.
    func renew(_ value: Value, forKey key: String) async
}
