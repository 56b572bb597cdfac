import Foundation
import Synchronization

/// Stage A of the pipeline, originals: a source's encoded bytes by key, from the stage's
/// cache (memory, then disk) or none, else fetched once for every caller that asks at the
/// same time (``ImageFetching``), then stored unless the source said `no-store` (or, to a
/// shared cache, `private`).
///
/// ```
/// memory ─ hit (not to be revalidated) → bytes
///   └─ one run per key ─ stored copy ─ hit (not to be revalidated: ``Revalidation``) → bytes
///        └─ fetch (conditional on the stored copy's validators when revalidating)
///             ├─ failed (a transfer error, a 5xx) within stale-if-error → the stored copy
///             ├─ body, not empty → stored with its freshness, unless no-store (or private, shared) → bytes
///             ├─ not modified → the stored copy, its metadata renewed by the 304 (the bytes not rewritten)
///             └─ a status, an empty body, a 304 with no stored copy → the stage's error
/// ```
///
/// The proxy runs it over its source cache (http and S3) and with none (`local://`); the
/// bulk job with none, so duplicate URLs in flight share one transfer.
///
/// Threads: as ``PipelineStage``: the first caller's task runs the lookup and the fetch,
/// so the stage starts no task; the fetcher says where its transfer runs. Bounded as
/// ``PipelineStage``.
package final class OriginalStage<Failure: Error>: Sendable {
    private let stage: PipelineStage<OriginalData, Failure>
    private let cache: (any PipelineStageCache<OriginalData>)?
    /// Whether its cache serves many users, which read `s-maxage` (``HTTPFreshness``).
    private let isShared: Bool
    private let failure: @Sendable (WebImageError) -> Failure
    private let onNotModified: @Sendable (URL) -> Void
    private let notModified = Atomic<Int>(0)

    /// - Parameters:
    ///   - cache: where fetched originals are kept; `nil` for a stage that keeps none.
    ///   - failure: the stage's error for an outcome it cannot use (a status, an empty
    ///     body, a 304 with nothing stored), given as the library's error.
    ///   - waitFailure: the error for a joiner that stopped waiting (cancelled, timed out).
    ///   - onNotModified: called with the source's URL for each revalidation answered 304 (metrics).
    ///   - shared: the cache serves many users (the proxy's): a copy's freshness reads
    ///     `s-maxage`, as RFC 9111 gives it to shared caches.
    package init(
        cache: (any PipelineStageCache<OriginalData>)?, failure: @escaping @Sendable (WebImageError) -> Failure,
        waitFailure: @escaping @Sendable (WaitError) -> Failure, onNotModified: @escaping @Sendable (URL) -> Void = { _ in },
        shared: Bool = false
    ) {
        stage = PipelineStage(cache: cache, waitFailure: waitFailure)
        self.cache = cache
        isShared = shared
        self.failure = failure
        self.onNotModified = onNotModified
    }

    /// Keys being fetched now (tests, metrics).
    package var runningCount: Int { stage.runningCount }
    /// How many lookup-and-fetch runs were started (tests: joiners start none).
    package var startedCount: Int { stage.startedCount }
    /// Revalidations answered 304 (tests, metrics).
    package var notModifiedCount: Int { notModified.load(ordering: .relaxed) }

    /// The original of `url`, keyed by its text.
    ///
    /// - Parameters:
    ///   - fetcher: fetches it on a miss; runs on the first caller's task, at most once per
    ///     URL at a time.
    ///   - deadline: when a joiner stops waiting (`waitFailure(.timedOut)`); the first
    ///     caller is bounded by the fetcher's own timeout.
    ///   - revalidating: when a stored copy is not answered as is but fetched again,
    ///     conditionally on its validators; a 304 answers the stored copy, its metadata renewed.
    package func original(
        for url: URL, from fetcher: some ImageFetching<Failure>, deadline: ContinuousClock.Instant? = nil,
        revalidating: Revalidation = .never
    ) async throws(Failure) -> OriginalData {
        try await original(for: url, key: url.absoluteString, in: cache, from: fetcher, deadline: deadline, revalidating: revalidating)
    }

    /// The original of `url` under `key`, kept in `cache` (`nil`: not kept) instead of the
    /// stage's own: the library's loads name their key (the key filter's) and their cache.
    ///
    /// - Parameter shared: whether callers of `key` at the same time share one fetch (then
    ///   they must share the cache and the fetcher's request too); unshared, this caller
    ///   fetches on its own (``PipelineStage/value(forKey:in:shared:deadline:revalidating:make:)``).
    package func original(
        for url: URL, key: String, in cache: (any PipelineStageCache<OriginalData>)?, shared: Bool = true,
        from fetcher: some ImageFetching<Failure>, deadline: ContinuousClock.Instant? = nil, revalidating: Revalidation = .never
    ) async throws(Failure) -> OriginalData {
        let keepsCopies = cache != nil
        return try await stage.value(
            forKey: key, in: cache, shared: shared, deadline: deadline, revalidating: revalidating.predicate
        ) {
            [self] stored throws(Failure) in
            let outcome: FetchOutcome
            do throws(Failure) {
                outcome = try await fetcher.fetch(url, validators: stored?.validators)
            } catch {
                // A transfer that failed (not one cancelled) within stale-if-error.
                if let stored, !Task.isCancelled, Self.mayServeStale(stored) { return .init(stored, store: .none) }
                throw error
            }
            return try made(outcome, of: url, stored: stored, keepsCopies: keepsCopies)
        }
    }

    /// When the stage checks a stored copy with its source before answering it.
    package enum Revalidation: Sendable {
        /// Never: a stored copy is answered as it is (an S3 object by version).
        case never
        /// Every time (an S3 object without a version).
        case always
        /// When its stored freshness says so (http sources): past its lifetime, or `no-cache`.
        /// Within `stale-while-revalidate` it is checked first too: the stage starts no task
        /// of its own to check it after answering. Without freshness it is never checked.
        case whenStale

        var predicate: (@Sendable (OriginalData) -> Bool)? {
            switch self {
            case .never: return nil
            case .always: return { _ in true }
            case .whenStale: return { ($0.freshness?.state(at: Date()) ?? .fresh) != .fresh }
            }
        }
    }

    /// Whether `stored` may stand in for a check that failed (a transfer error, or a status
    /// ``HTTPFreshness/staleCopyMayAnswer(status:)`` allows: a 5xx, not a 4xx): within its
    /// `stale-if-error`, or its `stale-while-revalidate`.
    static func mayServeStale(_ stored: OriginalData) -> Bool {
        switch stored.freshness?.state(at: Date()) {
        case .stale(staleIfErrorAllowed: true), .staleWhileRevalidate: return true
        default: return false
        }
    }

    /// What the stage keeps of `outcome`, or its error.
    private func made(
        _ outcome: FetchOutcome, of url: URL, stored: OriginalData?, keepsCopies: Bool
    ) throws(Failure) -> PipelineStage<OriginalData, Failure>.Made {
        switch outcome {
        case .body(var original, let http):
            guard !original.data.isEmpty else { throw failure(.badImageData("The source is empty")) }
            // Cache-Control: no-store from the source is honoured (and private, in a shared
            // cache): given to the caller, not kept.
            guard original.mayBeKept(shared: isShared) else { return .init(original, store: .none) }
            // A kept copy carries its freshness, as the library's entries do, so the
            // library's HTTPCachePolicy.respectHeaders reads this stage's entries as its
            // own. Computed here, not in every fetch: only a copy that is kept needs it.
            if keepsCopies, original.freshness == nil, let http {
                original.freshness = HTTPFreshness(headers: http.headers, receivedAt: Date(), shared: isShared)
            }
            return .init(original)
        case .notModified(let http):
            guard let stored else { throw failure(WebImageError(.invalidDownloadStatusCode, "HTTP 304", httpStatusCode: 304)) }
            notModified.add(1, ordering: .relaxed)
            onNotModified(url)
            // The 304's headers renew the stored copy's metadata; its bytes stay. A 304 that
            // changed nothing (S3's, which carries no headers, of a copy with no freshness)
            // writes nothing.
            let renewed = stored.renewed(by: http, shared: isShared)
            let changed = !renewed.hasSameMetadata(as: stored)
            return .init(renewed, store: changed && renewed.mayBeKept(shared: isShared) ? .metadata : .none)
        case .status(let http):
            // A 5xx within stale-if-error: the stored copy stands in (never for a 4xx).
            if let stored, HTTPFreshness.staleCopyMayAnswer(status: http.statusCode), Self.mayServeStale(stored) {
                return .init(stored, store: .none)
            }
            throw failure(WebImageError(.invalidDownloadStatusCode, "HTTP \(http.statusCode)", httpStatusCode: http.statusCode))
        }
    }
}
