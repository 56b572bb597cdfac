import Foundation
import Logging
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

// MARK: - The library's originals

/// The library's originals as stage A (``OriginalStage``) keeps them: the disk entries of
/// a load's ``ImageCaching``, the bytes as the file and the response's metadata as its
/// extended data, the form ``OriginalData`` reads and the library's cache has always
/// written (``StoredHTTPMetadata``), so entries written before stage A read the same.
/// Both are read and written as one entry (``ImageCaching/diskEntry(forKey:)``,
/// ``ImageCaching/storeDiskEntry(_:extendedData:forKey:)``), so the validators a check
/// sends are those of the bytes it keeps.
///
/// It has no memory tier: the cache's memory holds decoded images, not bytes. A new
/// original supersedes what was made from the old one, so storing one removes the
/// `superseded` entries (the image decoded from it under the same key, or the result
/// derived from it) once the new bytes are on disk: the next load makes them again from
/// the new bytes, never from the old. A load that checks its stored copy in the foreground
/// stores new bytes itself, as any download (its hooks and cache serializer decide the disk
/// entry): its adapter keeps only what a 304 renews (`storesNew` false).
///
/// Threads: the cache's `async` requirements, awaited on the stage's run; a store returns
/// when the cache wrote it.
struct ImageCachingOriginals: PipelineStageCache {
    let cache: any ImageCaching
    /// Entries removed after a new original is stored.
    var superseded: [(key: String, cacheType: ImageCacheType)] = []
    /// Whether new bytes are written; renewed metadata always is.
    var storesNew = true

    func memoryValue(forKey key: String) -> OriginalData? { nil }

    func storedValue(forKey key: String) async -> OriginalData? {
        guard let entry = await cache.diskEntry(forKey: key) else { return nil }
        return OriginalData(storedEntry: StoredEntry(data: entry.data, extendedData: entry.extendedData))
    }

    func store(_ value: OriginalData, forKey key: String) async {
        guard storesNew else { return }
        let entry = value.storedEntry
        do throws(WebImageError) {
            try await cache.storeDiskEntry(entry.data, extendedData: entry.extendedData, forKey: key)
        } catch {
            LibraryPreset.logger.error("Storing the original \(key.redactedURLForLog) failed: \(error)")
            return
        }
        for entry in superseded { await cache.removeImage(forKey: entry.key, cacheType: entry.cacheType) }
    }

    func renew(_ value: OriginalData, forKey key: String) async {
        do throws(WebImageError) {
            try await cache.setExtendedData(value.storedEntry.extendedData, forKey: key)
        } catch {
            LibraryPreset.logger.debug("Keeping the metadata of \(key.redactedURLForLog) failed: \(error)")
        }
    }
}

/// One load's fetch through its loader, as stage A asks for it (``ImageFetching``): with
/// the load's options and context (the request modifier, cookies, TLS), heard and steered
/// through its observer (the token's priority and cancellation, progress).
///
/// A loader with a fetcher for the URL (``ImageFetchingLoader``: the downloader) fetches the
/// body undecoded; a status its config accepts is a body, as for the load, and one it
/// refuses is ``FetchOutcome/status(_:)``. Any other loader loads as it always does (told
/// ``WebImageOptions/avoidDecodeImage`` unless a load hears the response); its data is the
/// body and its thrown 304 ``FetchOutcome/notModified(_:)``.
///
/// A load that checks its stored copy in the foreground hears the response a body came in
/// (`heard`): a body it heard is new bytes for it to decode and store; none heard, and the
/// stored copy stood. It fetches under no shared key, so the body it hears is its own.
struct LoaderFetch: ImageFetching {
    let loader: any ImageLoader
    /// `loader` as a loader with fetchers (the downloader), cast once when it is made.
    let fetching: (any ImageFetchingLoader)?
    let options: WebImageOptions
    let context: WebImageContext
    let observer: ImageLoadObserver
    let heard: HeardResponse?

    init(
        loader: any ImageLoader, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver,
        heard: HeardResponse? = nil
    ) {
        (self.loader, fetching) = (loader, loader as? any ImageFetchingLoader)
        (self.options, self.context, self.observer, self.heard) = (options, context, observer, heard)
    }

    /// The fetch of a loader known to be the downloader (a cold load's): nothing to cast.
    init(downloader: ImageDownloader, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver,
         heard: HeardResponse?) {
        (loader, fetching) = (downloader, downloader)
        (self.options, self.context, self.observer, self.heard) = (options, context, observer, heard)
    }

    // Each path is out of line, so the frame a load keeps while its transfer waits in the
    // downloader's line holds only the path it took (a cold load's: no validators, the
    // downloader).
    func fetch(_ url: URL, validators: HTTPValidators?) async throws(WebImageError) -> FetchOutcome {
        if let validators, validators.canValidate { return try await revalidate(url, validators) }
        return try await fetch(url, options: options, context: context)
    }

    /// A check of a stored copy: the validators ride in the request.
    @inline(never)
    private func revalidate(_ url: URL, _ validators: HTTPValidators) async throws(WebImageError) -> FetchOutcome {
        var context = context
        context.validators = validators
        return try await fetch(url, options: options.union(.useHTTPCache), context: context)
    }

    /// The downloader's fetch when the loader has one for `url`, else the loader's load.
    // Inlined into both callers, so only the two paths it picks have frames of their own.
    @inline(__always)
    private func fetch(_ url: URL, options: WebImageOptions, context: WebImageContext) async throws(WebImageError) -> FetchOutcome {
        if let downloader = fetching?.fetcher(for: url) {
            return try await fetch(url, from: downloader, options: options, context: context)
        }
        return try await load(url, options: options, context: context)
    }

    @inline(never)
    private func fetch(
        _ url: URL, from downloader: ImageDownloader, options: WebImageOptions, context: WebImageContext
    ) async throws(WebImageError) -> FetchOutcome {
        do throws(WebImageError) {
            let outcome = try await downloader.fetch(url, options: options, context: context, observer: observer)
            if let heard, case .body(let original, let http) = outcome { heard.keep(url, original, http) }
            return outcome
        } catch {
            guard let status = ImageDownloader.refusedStatus(error) else { throw error }
            return status
        }
    }

    @inline(never)
    private func load(_ url: URL, options: WebImageOptions, context: WebImageContext) async throws(WebImageError) -> FetchOutcome {
        var options = options
        if heard == nil { options.insert(.avoidDecodeImage) }
        do throws(WebImageError) {
            let response = try await loader.loadImage(with: url, options: options, context: context, observer: observer)
            heard?.keep(response)
            let data = response.data ?? Data()
            return .body(response.http.map { OriginalData(data: data, http: $0) } ?? OriginalData(data: data), http: response.http)
        } catch where error.code == .cacheNotModified {
            return .notModified((error.underlyingError as? ResponseCause)?.http)
        }
    }
}

/// The response of the body a load's own fetch brought (``LoaderFetch``), kept for the load.
final class HeardResponse: Sendable {
    private let value = Mutex<ImageLoadResponse?>(nil)

    func keep(_ response: ImageLoadResponse) { value.withLock { $0 = response } }

    /// A downloaded body, kept as the response a loader would have given for it.
    func keep(_ url: URL, _ original: OriginalData, _ http: HTTPResponseInfo?) {
        keep(ImageLoadResponse(url: url, image: nil, data: original.data, isFinished: true, http: http, attempts: http?.attempts ?? 1))
    }

    var response: ImageLoadResponse? { value.withLock { $0 } }
}
