import Foundation
import Logging
import Synchronization

/// The image pipeline, one type for the three front-ends, each a preset of it:
///
/// ```
/// stage A, originals (OriginalStage: memory, one fetch per key, the disk tier, fetch, store)
///  └─ stage B, images: the front-end's own
///
/// library  ImagePipeline(LibraryPreset)      A: the load's ImageCaching, its loader's fetch;
///                                            B: ImageStage on the decode queue, then the load below
/// proxy    ImagePipeline(.proxy(…))          A: a shared TieredCache, a fetcher per kind of source;
///                                            B: the server's render stage (decode planned from the header)
/// bulk     ImagePipeline(.bulk(…))           A: no cache, duplicate URLs in flight share one fetch;
///                                            B: the dataset job's decode and resize
/// ```
///
/// Stage A is the same code for all three (``OriginalStage`` over ``PipelineStage``). What
/// a preset chooses is stage A's cache, where each URL is fetched, when a kept original is
/// checked again, and the error the stages throw. Stage B differs with what each front-end
/// makes: the library's per-load images (progress, priority, partial images, the user's
/// hooks), the proxy's planned render, bulk's dataset sample.
///
/// Threads: every stage runs on its caller's task and starts no task of its own (a
/// library load's background revalidation excepted, below); the fetchers and stage B say
/// where their work runs.
package final class ImagePipeline<Preset: PipelinePreset>: Sendable {
    /// What makes this pipeline the library's, the proxy's or bulk's.
    let preset: Preset
    /// Stage A, originals.
    package let originals: OriginalStage<Preset.Failure>
    /// Background revalidations running (the library's ``HTTPCachePolicy/respectHeaders``
    /// `stale-while-revalidate`): what ``ImageManager/cancelAll()`` reaches. Empty in the
    /// other presets, which start none.
    private let revalidations = Mutex<[ObjectIdentifier: ImageLoadToken]>([:])

    /// A pipeline of `preset`.
    package init(_ preset: Preset) {
        self.preset = preset
        originals = preset.makeOriginals()
    }
}

// MARK: - The presets

/// What makes an ``ImagePipeline`` one front-end's: its stage A and its error.
package protocol PipelinePreset: Sendable {
    /// What the stages throw: the library's error, the proxy's HTTP answer, a bulk sample's failure.
    associatedtype Failure: Error
    /// Stage A as this front-end runs it: its cache, and its errors for what it cannot use.
    func makeOriginals() -> OriginalStage<Failure>
}

/// The preset of a front-end that fetches each URL with the fetcher its kind of source
/// names, through stage A's own cache or none: the proxy (``proxy(cache:route:failure:waitFailure:onNotModified:)``)
/// and bulk (``bulk(_:failure:waitFailure:)``).
package struct SourcesPreset<Failure: Error>: PipelinePreset {
    /// Where one URL is fetched, and how stage A treats its original.
    package struct Source: Sendable {
        package var fetcher: any ImageFetching<Failure>
        /// Whether stage A keeps its original in the preset's cache (`false`: a file read
        /// afresh each time, a built-in example).
        package var isKept: Bool
        /// When a kept original is checked with its source before it is answered.
        package var revalidation: OriginalStage<Failure>.Revalidation

        package init(_ fetcher: any ImageFetching<Failure>, isKept: Bool = true, revalidation: OriginalStage<Failure>.Revalidation = .never) {
            self.fetcher = fetcher
            self.isKept = isKept
            self.revalidation = revalidation
        }
    }

    let cache: (any PipelineStageCache<OriginalData>)?
    /// The cache serves many users (the proxy's): freshness reads `s-maxage`, and `private`
    /// responses are not kept.
    let isShared: Bool
    let route: @Sendable (URL) throws(Failure) -> Source
    let failure: @Sendable (WebImageError) -> Failure
    let waitFailure: @Sendable (WaitError) -> Failure
    let onNotModified: @Sendable (URL) -> Void

    /// The proxy's: stage A over `cache` (a shared cache: `s-maxage`, no `private`
    /// responses), each URL fetched where `route` says (it throws for a source the server
    /// refuses); the server's render stage follows it.
    ///
    /// - Parameter onNotModified: called with the source's URL for each revalidation answered 304.
    package static func proxy(
        cache: (any PipelineStageCache<OriginalData>)?, route: @escaping @Sendable (URL) throws(Failure) -> Source,
        failure: @escaping @Sendable (WebImageError) -> Failure, waitFailure: @escaping @Sendable (WaitError) -> Failure,
        onNotModified: @escaping @Sendable (URL) -> Void
    ) -> Self {
        Self(cache: cache, isShared: true, route: route, failure: failure, waitFailure: waitFailure, onNotModified: onNotModified)
    }

    /// Bulk's: stage A with no cache over one fetcher, so duplicate URLs in flight share
    /// one transfer and nothing is kept.
    package static func bulk(
        _ fetcher: some ImageFetching<Failure>, failure: @escaping @Sendable (WebImageError) -> Failure,
        waitFailure: @escaping @Sendable (WaitError) -> Failure
    ) -> Self {
        let source = Source(fetcher, isKept: false)
        return Self(cache: nil, isShared: false, route: { _ in source }, failure: failure, waitFailure: waitFailure, onNotModified: { _ in })
    }

    package func makeOriginals() -> OriginalStage<Failure> {
        OriginalStage(cache: cache, failure: failure, waitFailure: waitFailure, onNotModified: onNotModified, shared: isShared)
    }
}

extension ImagePipeline {
    /// The original of `url` from stage A, fetched where the preset's route says: from the
    /// preset's cache (memory, then disk) when the source is kept there, else one fetch for
    /// every caller that asks at the same time, on the first caller's task.
    ///
    /// - Parameter deadline: when a caller joining a fetch already under way stops waiting;
    ///   the caller running it is bounded by the fetcher's own timeout.
    /// - Throws: the route's refusal, or stage A's error for the fetch.
    package func original<Failure>(
        for url: URL, deadline: ContinuousClock.Instant? = nil
    ) async throws(Failure) -> OriginalData where Preset == SourcesPreset<Failure> {
        let source = try preset.route(url)
        return try await originals.original(
            for: url, key: url.absoluteString, in: source.isKept ? preset.cache : nil, from: source.fetcher,
            deadline: deadline, revalidating: source.revalidation)
    }
}

/// The library's preset: stage A keeps originals in each load's ``ImageCaching`` (its disk
/// entries) and fetches them with the load's loader; stage B decodes on the downloader's
/// decode queue, then the load's hooks run and its results are stored, below. Its parts
/// are the ``ImageManager``'s, the façade in front of it.
struct LibraryPreset: PipelinePreset {
    typealias Failure = WebImageError
    /// Where the user hooks (transformer, delegate, serializer) and lazy decodes of cached
    /// originals run: the manager's ``ImageManager/decodeQueue``.
    let decodeQueue: DecodeQueue
    /// The manager's block list: a permanent failure enters it, a retried success leaves it.
    let failedURLs: FailedURLSet
    /// The manager's settings, for its hooks.
    let settings: ImageManager.Settings
    static let logger = Logger(label: "WebImage.ImageManager")

    /// A load names its cache, so stage A has none of its own (``ImageCachingOriginals``).
    func makeOriginals() -> OriginalStage<WebImageError> {
        OriginalStage(cache: nil, failure: { $0 }, waitFailure: { _ in .cancelled("Stopped waiting for the original") })
    }
}

// MARK: - The library's load

/// The library's load, read top to bottom. ``ImageManager`` is the façade in front of it:
/// it makes the load's keys (the key filter), checks the failed-URL block list, answers
/// memory hits on the calling thread, and hands the rest here as an `ImageRequest` with the
/// load's ``ImageTask``.
///
/// ```
/// run
///  ├─ cached result under the load's key (memory, then disk)   → deliverCached (freshness, refresh: stage A)
///  ├─ a thumbnail, transform or lazy image made from the original's cached data
///  └─ download (stage A, then stage B) → complete (hooks and transform on the decode queue, store) → deliver
/// ```
///
/// Every stage is an `async` function on the load's task; a stage that needs another
/// thread (the disk, the network, a decode) suspends while that thread works, so the
/// pipeline holds no lock and no queue across it. Each stage reads what it needs from the
/// load's `ImageRequest`; results go to the load's ``ImageTask``. The manager's hooks (its
/// delegate, its cache serializer) are read from its settings where each applies, so a
/// hook set while loads run reaches the stages still ahead of them.
///
/// The originals come from stage A (``OriginalStage``, ``originals``) and their images
/// from stage B (``ImageStage``): a cold load's download, a load's own check of its stored
/// original (refreshCached, a stale hit), and the background check of
/// `stale-while-revalidate`. A load runs stage A unshared, on its own task: the downloader
/// shares one transfer among the loads of one URL with each load's own progress, priority
/// and cancellation, which a stage's single flight would take from every load but the
/// first; and it looks nothing up there, since its cache query (``ImageCaching``, which
/// keeps originals and results) came first.
extension ImagePipeline where Preset == LibraryPreset {
    var decodeQueue: DecodeQueue { preset.decodeQueue }
    var failedURLs: FailedURLSet { preset.failedURLs }
    var settings: ImageManager.Settings { preset.settings }
    static var logger: Logger { LibraryPreset.logger }

    /// Cancels every background revalidation.
    func cancelRevalidations() {
        for token in revalidations.withLock({ Array($0.values) }) { token.cancel() }
    }

    /// Keeps a background revalidation's token while `work` runs, so
    /// ``ImageManager/cancelAll()`` reaches it.
    func trackRevalidation(_ token: ImageLoadToken, _ work: @escaping @Sendable () async -> Void) {
        let id = ObjectIdentifier(token)
        revalidations.withLock { $0[id] = token }
        Task { [weak self] in
            await work()
            self?.revalidations.withLock { _ = $0.removeValue(forKey: id) }
        }
    }

    // MARK: The load

    // The steps a load takes on one path and not another are out of line (`@inline(never)`):
    // an async function's frame has room for every value of every step inlined into it,
    // and a load waiting for a transfer keeps its whole chain of frames. With 1,000 loads
    // started at once and 16 transfers running, that chain is most of the memory the
    // waiting loads hold. `scripts/async-frames.py` prints each function's frame size.

    /// Runs `request` to its end: its last result (or failure) reaches `task`.
    ///
    /// - Parameter deliveredHit: a cache hit already delivered before the pipeline started
    ///   (the callback form's synchronous answer with ``WebImageOptions/refreshCached``):
    ///   the pipeline goes straight to the refresh.
    func run(_ request: ImageRequest, _ task: ImageTask, deliveredHit: ImageCacheQueryResult? = nil) async {
        do throws(WebImageError) {
            if let hit = deliveredHit {
                try await refresh(request, task, cached: hit)
            } else if let hit = try await queryCache(request, task) {
                try await deliverCached(request, task, hit)
            } else if request.isKeptApart, let derived = try await deriveFromOriginal(request, task) {
                task.finish(derived, isLast: true)
            } else {
                try await downloadAndComplete(request, task)
            }
        } catch {
            fail(request, task, error)
        }
    }

    /// The result's own key in the cache, unless the load skips the cache; `nil` on a miss.
    @inline(never)
    private func queryCache(_ request: ImageRequest, _ task: ImageTask) async throws(WebImageError) -> ImageCacheQueryResult? {
        guard let key = request.key, !request.options.contains(.fromLoaderOnly), request.context.queryCacheType != .none else {
            return nil
        }
        try task.checkCancelled()
        let query = request.resultQuery
        let hit = try await request.cache.queryImage(forKey: key, options: query.options, context: query.context)
        return hit.image != nil ? hit : nil
    }

    /// For a thumbnail, transformed or lazy key that missed: the result made from the
    /// original's cached data (by default on disk), transformed and stored, without a
    /// download. `nil` when there is no such data, or it does not decode. Called only for
    /// a request kept apart from its original (``ImageRequest/isKeptApart``; `run` checks,
    /// so a plain load never allocates this frame).
    private func deriveFromOriginal(_ request: ImageRequest, _ task: ImageTask) async throws(WebImageError) -> ImageLoadResult? {
        let cacheType = request.context.originalQueryCacheType
        guard let originalKey = request.originalKey, !request.options.contains(.fromLoaderOnly),
              cacheType != .none else { return nil }
        try task.checkCancelled()
        if request.isLazy {
            // The cache decodes eagerly, so the data is asked for, not the image.
            guard cacheType.includesDisk, let data = await request.cache.diskData(forKey: originalKey) else { return nil }
            let (options, coder) = (request.originalDecodeOptions, request.context.imageCoder ?? ImageCodersManager.shared)
            let decoded = await Result { () async throws(WebImageError) -> DecodedImage in
                try await decodeQueue.decode(data, options: options, lazy: true, coder: coder)
            }
            guard case .success(let image) = decoded else {
                try task.checkCancelled()
                return nil
            }
            WebImageMetrics.diskHits.increment()
            return try await complete(request, task, image: image, data: data, cacheType: .disk, download: nil)
        }
        let query = request.originalQuery
        let hit = try await request.cache.queryImage(forKey: originalKey, options: query.options, context: query.context)
        guard let image = hit.image else { return nil }
        return try await complete(request, task, image: image, data: hit.data, cacheType: hit.cacheType, download: nil)
    }

    /// After every cache missed: downloads (unless the options or the delegate forbid
    /// it), then transforms, stores and delivers.
    private func downloadAndComplete(_ request: ImageRequest, _ task: ImageTask) async throws(WebImageError) {
        guard try mayDownload(request, task) else { return }
        let response = try await download(request, task)
        try await finish(downloaded: response, for: request, task)
    }

    /// Whether a load that missed every cache may download: not when cancelled or
    /// ``WebImageOptions/fromCacheOnly`` (errors), nor when the delegate declines (then
    /// the load ends with no image).
    @inline(never)
    private func mayDownload(_ request: ImageRequest, _ task: ImageTask) throws(WebImageError) -> Bool {
        try task.checkCancelled()
        if request.options.contains(.fromCacheOnly) {
            throw WebImageError(.notInCache, "\(request.url.redactedForLog) is not in the cache (fromCacheOnly)")
        }
        guard settings.delegate?.shouldDownloadImage(for: request.url) ?? true else {
            task.finish(request.result(image: nil, data: nil, cacheType: .none), isLast: true)
            return false
        }
        return true
    }

    /// Ends the load with a download's result, after `complete` (the hooks, the store).
    @inline(never)
    private func finish(downloaded response: ImageLoadResponse, for request: ImageRequest, _ task: ImageTask) async throws(WebImageError) {
        let result = try await complete(request, task, image: response.image, data: response.data, cacheType: .none, download: response)
        task.finish(result, isLast: true)
    }

    // MARK: A cached hit: refreshCached, HTTP freshness

    // A cache hit and what it may still need: refreshCached (deliver,
    // then revalidate) and HTTPCachePolicy.respectHeaders (revalidate first when stale,
    // or afterwards in the background within `stale-while-revalidate`). The HTTP validators
    // and freshness live with the original's disk entry (its extended data, through
    // ImageCaching), also for a derived result, so any cache that keeps extended data
    // supports both.

    /// Delivers a hit of the load's own key, as its options and cache policy allow.
    @inline(never)
    func deliverCached(_ request: ImageRequest, _ task: ImageTask, _ hit: ImageCacheQueryResult) async throws(WebImageError) {
        let refresh = request.options.contains(.refreshCached)
        if request.httpCachePolicy == .respectHeaders, !refresh, !request.options.contains(.fromCacheOnly) {
            try await deliverIfFresh(request, task, hit)
            return
        }
        task.finish(request.result(hit), isLast: !refresh)
        if refresh { try await self.refresh(request, task, cached: hit) }
    }

    /// refreshCached after the cached image was delivered: the stored original checked
    /// with its source in stage A (``checkOriginal(_:_:revalidating:)``); unchanged (a 304)
    /// ends the load with no second result, new bytes give a second result. A failed check
    /// is no new result: the cached image stands.
    @inline(never)
    func refresh(_ request: ImageRequest, _ task: ImageTask, cached: ImageCacheQueryResult) async throws(WebImageError) {
        guard !request.options.contains(.fromCacheOnly), settings.delegate?.shouldDownloadImage(for: request.url) ?? true else {
            task.finish(nil, isLast: true)
            return
        }
        do throws(WebImageError) {
            guard let response = try await checkOriginal(request, task, revalidating: .always) else {
                task.finish(nil, isLast: true)
                return
            }
            try await finish(downloaded: response, for: request, task)
        } catch where error.code != .cancelled {
            Self.logger.debug("Revalidating \(request.url.redactedForLog) failed: \(error)")
            task.finish(nil, isLast: true)
        }
    }

    /// Delivers `hit` when its stored freshness allows; otherwise revalidates it first
    /// (a 304 delivers it, and so does a failure within `stale-if-error`), or within
    /// `stale-while-revalidate` delivers it and revalidates in the background.
    private func deliverIfFresh(_ request: ImageRequest, _ task: ImageTask, _ hit: ImageCacheQueryResult) async throws(WebImageError) {
        let stored = await readValidators(request)
        switch stored?.freshness?.state(at: Date()) ?? .fresh {
        case .fresh:
            task.finish(request.result(hit), isLast: true)
        case .staleWhileRevalidate:
            task.finish(request.result(hit), isLast: true)
            revalidateInBackground(request)
        case .stale:
            guard settings.delegate?.shouldDownloadImage(for: request.url) ?? true else {
                task.finish(request.result(hit), isLast: true)
                return
            }
            guard let response = try await checkOriginal(request, task, revalidating: .whenStale) else {
                task.finish(request.result(hit), isLast: true)
                return
            }
            try await finish(downloaded: response, for: request, task)
        }
    }

    /// The load's stored original checked with its source in stage A (``originals``), the
    /// load's own check (its token, progress and priority; the downloader shares the
    /// transfer underneath): `nil` when the stored copy stands (a 304, which renews its
    /// stored metadata; a failure within `stale-if-error`: any but a status below 500, RFC
    /// 5861 §4); else the new response, decoded by stage B, which the load completes and
    /// stores as any download. Other failures are thrown.
    private func checkOriginal(
        _ request: ImageRequest, _ task: ImageTask, revalidating: OriginalStage<WebImageError>.Revalidation
    ) async throws(WebImageError) -> ImageLoadResponse? {
        try task.checkCancelled()
        let token = ImageLoadToken(url: request.url, priority: task.priority)
        task.attach(token)
        var observer = ImageLoadObserver(token: token)
        if task.reportsProgress {
            observer.progress = { received, expected in task.reportProgress(received: received, expected: expected) }
        }
        let options = request.loaderOptions
        let heard = HeardResponse()
        let context = request.loaderContext(validators: nil)
        let fetch = LoaderFetch(loader: request.loader, options: options, context: context, observer: observer, heard: heard)
        let cache = request.originalKey.map { _ in ImageCachingOriginals(cache: request.cache, storesNew: false) }
        do throws(WebImageError) {
            _ = try await originals.original(
                for: request.url, key: request.originalKey ?? request.url.absoluteString, in: cache, shared: false, from: fetch,
                revalidating: revalidating)
        } catch where error.code == .badImageData && heard.response?.image != nil {
            // A custom loader's image without bytes: nothing for the stage to keep, the
            // load's to deliver, as any download of it.
        }
        // A stored copy that stood in for a check the load's token cancelled is no answer.
        try task.checkCancelled()
        guard var response = heard.response else { return nil }
        if request.options.contains(.retryFailed) { failedURLs.remove(request.url) }
        if response.image == nil, !options.contains(.avoidDecodeImage), let data = response.data,
           let downloader = fetch.fetching?.fetcher(for: request.url) {
            response.image = try await downloader.stage(options: options, context: context).image(from: data)
        }
        return response
    }

    /// Revalidates after a stale hit was delivered, in stage A (``originals``): the stored
    /// copy is read again and, while it is still not fresh, fetched conditionally with the
    /// load's loader; a 304 renews its stored freshness, new bytes replace the original's
    /// disk entry and supersede what was made from the old ones (the image decoded from it
    /// in memory, or a result kept apart), which the next load makes again. Nothing is
    /// decoded here. Background revalidations of one original share one fetch. Runs in a
    /// task of its own whose token ``ImageManager/cancelAll()`` reaches.
    private func revalidateInBackground(_ request: ImageRequest) {
        guard let key = request.originalKey else { return }
        var options = request.loaderOptions
        options.insert(.lowPriority)
        options.remove(.progressiveLoad)
        let token = ImageLoadToken(url: request.url, priority: .low)
        let fetch = LoaderFetch(
            loader: request.loader, options: options, context: request.loaderContext(validators: nil),
            observer: ImageLoadObserver(token: token))
        let shared = Self.sharesOriginals(request)
        let superseded: [(key: String, cacheType: ImageCacheType)] =
            request.isKeptApart ? request.key.map { [($0, .all)] } ?? [] : [(key, .memory)]
        let cache = ImageCachingOriginals(cache: request.cache, superseded: superseded)
        trackRevalidation(token) { [self] in
            do throws(WebImageError) {
                _ = try await originals.original(
                    for: request.url, key: key, in: cache, shared: shared, from: fetch, revalidating: .whenStale)
            } catch {
                Self.logger.debug("Revalidating \(request.url.redactedForLog) in the background failed: \(error)")
            }
        }
    }

    /// Whether `request`'s background revalidation shares stage A's fetch with others of
    /// its original: when it uses the manager's cache and loader and no request or response
    /// modifier. Otherwise it fetches on its own: a fetch through another loader, modifier
    /// or cache must not answer it.
    static func sharesOriginals(_ request: ImageRequest) -> Bool {
        let context = request.context
        return context.imageCache == nil && context.imageLoader == nil && context.downloadRequestModifier == nil
            && context.downloadResponseModifier == nil
    }

    /// The validators stored with the load's original entry.
    func readValidators(_ request: ImageRequest) async -> HTTPValidators? {
        guard let key = request.originalKey else { return nil }
        return await request.cache.extendedData(forKey: key).flatMap(HTTPValidators.init(cacheData:))
    }

    // MARK: Download: the request, partial images, failures and the block list

    /// Downloads the load's URL: with a loader that has a fetcher for it
    /// (``ImageFetchingLoader``, the default ``ImageDownloader``), the original from stage
    /// A and its image from stage B (``fetchAndDecode(_:from:options:context:observer:partial:)``);
    /// any other loader loads and decodes itself (``ImageLoader/loadImage(with:options:context:observer:)``).
    ///
    /// `task` steers the download through a token (priority changes, cancel)
    /// and hears its progress and partial images.
    func download(_ request: ImageRequest, _ task: ImageTask) async throws(WebImageError) -> ImageLoadResponse {
        try task.checkCancelled()
        let (url, options, context) = (request.url, request.loaderOptions, request.loaderContext(validators: nil))
        let token = ImageLoadToken(url: url, priority: task.priority)
        task.attach(token)
        var observer = ImageLoadObserver(token: token)
        if task.reportsProgress {
            observer.progress = { received, expected in task.reportProgress(received: received, expected: expected) }
        }
        var partial: (@Sendable (DecodedImage) -> Void)?
        if request.options.contains(.progressiveLoad) {
            // Partial images are shown, never stored.
            partial = { image in
                task.finish(request.result(image: image, data: nil, cacheType: .none, isFinished: false), isLast: false)
            }
        }
        let response: ImageLoadResponse
        if let downloader = (request.loader as? any ImageFetchingLoader)?.fetcher(for: url) {
            response = try await fetchAndDecode(
                request, from: downloader, options: options, context: context, observer: observer, partial: partial)
        } else {
            response = try await Self.load(url, with: request.loader, options: options, context: context, observer: observer, partial: partial)
        }
        if request.options.contains(.retryFailed) { failedURLs.remove(url) }
        return response
    }

    /// A load through a loader other than the downloader (it decodes itself).
    @inline(never)
    private static func load(
        _ url: URL, with loader: any ImageLoader, options: WebImageOptions, context: WebImageContext,
        observer: ImageLoadObserver, partial: (@Sendable (DecodedImage) -> Void)?
    ) async throws(WebImageError) -> ImageLoadResponse {
        var observer = observer
        if let partial { observer.partialImage = { response in if let image = response.image { partial(image) } } }
        return try await loader.loadImage(with: url, options: options, context: context, observer: observer)
    }

    /// A cold load's original from stage A, fetched by `downloader` for this load alone
    /// (unshared: its token, progress and priority; the downloader shares the transfer
    /// underneath) with no stored copy to look up (the load's cache query missed, and the
    /// load stores what it makes itself), then its image from stage B as the downloader
    /// decodes a body (``ImageDownloader/loadDecoded(_:options:context:observer:partial:fetch:)``:
    /// the body lease held while it decodes, one decode for the loads of one body, partial
    /// images from the bytes so far).
    private func fetchAndDecode(
        _ request: ImageRequest, from downloader: ImageDownloader, options: WebImageOptions, context: WebImageContext,
        observer: ImageLoadObserver, partial: (@Sendable (DecodedImage) -> Void)?
    ) async throws(WebImageError) -> ImageLoadResponse {
        try await downloader.loadDecoded(
            request.url, options: options, context: context, observer: observer, partial: partial
        ) { observer throws(WebImageError) in
            let heard = HeardResponse()
            let fetch = LoaderFetch(downloader: downloader, options: options, context: context, observer: observer, heard: heard)
            let original = try await self.original(of: request, from: fetch)
            return .body(original, http: heard.response?.http)
        }
    }

    /// The load's original from stage A, fetched for it alone, with nothing stored to look up.
    private func original(of request: ImageRequest, from fetch: LoaderFetch) async throws(WebImageError) -> OriginalData {
        do throws(WebImageError) {
            return try await originals.original(
                for: request.url, key: request.originalKey ?? request.url.absoluteString, in: nil, shared: false, from: fetch)
        } catch where error.code == .invalidDownloadStatusCode && error.httpStatusCode == 304 {
            // A 304 the load did not ask for: cacheNotModified, as SDWebImage's loader gives it
            // (never on the block list).
            throw ImageDownloader.notModified(request.url, http: nil)
        }
    }

    /// Ends the load with `error`, putting its URL on the block list when the error is
    /// permanent and the delegate (else the loader) agrees.
    @inline(never)
    func fail(_ request: ImageRequest, _ task: ImageTask, _ error: WebImageError) {
        if FailedURLPolicy.mayBlock(error), shouldBlock(request, error) {
            failedURLs.insert(request.url, error: error)
        }
        task.finish(request.failure(error), isLast: true)
    }

    /// The delegate's block-list decision, else the loader's.
    private func shouldBlock(_ request: ImageRequest, _ error: WebImageError) -> Bool {
        if let decision = settings.delegate?.shouldBlockFailedURL(request.url, error: error) { return decision }
        return request.loader.shouldBlockFailedURL(request.url, error: error)
    }

    // MARK: Complete: the user hooks and the transformer, the store, the result

    /// Runs the user hooks that apply (the delegate's `transformDownloadedImage`, the
    /// transformer, the cache serializer) on ``decodeQueue``, then stores what the load's
    /// context says and returns the result.
    ///
    /// - Parameter download: what the loader brought; `nil` when `image` came from the
    ///   original's cache entry (nothing new to store for the original then).
    @inline(never)
    func complete(
        _ request: ImageRequest, _ task: ImageTask, image: DecodedImage?, data: Data?, cacheType: ImageCacheType,
        download: ImageLoadResponse?
    ) async throws(WebImageError) -> ImageLoadResult {
        try task.checkCancelled()
        let hook = download != nil ? settings.delegate : nil
        let serializer = download != nil && !request.isKeptApart ? request.context.cacheSerializer ?? settings.cacheSerializer : nil
        var output = (image: image, isReplaced: false, diskData: request.isKeptApart ? nil : data)
        if let image, hook != nil || request.transformer != nil || serializer != nil {
            output = try await decodeQueue.perform {
                .success(Self.applyHooks(request, image: image, data: data, hook: hook, serializer: serializer))
            }
            try task.checkCancelled()
        }
        await store(request, image: output.image, diskData: output.diskData, download: download)
        return request.result(
            image: output.image, data: output.isReplaced ? nil : data, cacheType: cacheType, http: download?.http)
    }

    /// The hooks, in order, on the calling thread (a decode-queue thread). A replaced
    /// image has no disk data of its own (the downloaded bytes no longer describe it);
    /// derived images are encoded by the cache.
    private static func applyHooks(
        _ request: ImageRequest, image: DecodedImage, data: Data?, hook: (any ImageManagerDelegate)?,
        serializer: WebImageContext.CacheSerializer?
    ) -> (image: DecodedImage?, isReplaced: Bool, diskData: Data?) {
        var output = (image: Optional(image), isReplaced: false, diskData: request.isKeptApart ? nil : data)
        if let replaced = hook?.transformDownloadedImage(image, for: request.url) {
            output = (replaced, true, nil)
        }
        if let transformer = request.transformer, let input = output.image {
            let transformAnimated = request.options.contains(.transformAnimatedImage)
            let transformed = input.animation != nil && transformAnimated
                ? input.transformedFrameByFrame(by: transformer, forKey: request.sourceKey ?? "")
                : ImageTransform.apply(
                    transformer, to: input, forKey: request.sourceKey ?? "", transformAnimatedImage: transformAnimated)
            if let transformed {
                output.image = transformed
            } else {
                logger.debug("\(transformer.transformerKey) could not transform \(request.url.redactedForLog)")
            }
        }
        if let serializer, !output.isReplaced, let result = output.image {
            output.diskData = serializer(result, data, request.url)
        }
        return output
    }

    /// Stores the downloaded original (for results kept apart from it) and the result:
    /// the memory parts now, the disk parts in the background, or before returning with
    /// ``WebImageOptions/waitStoreCache``. A lazy animation is kept in memory only: on
    /// disk its original's data stands for it, and so is everything of a `no-store` response.
    private func store(_ request: ImageRequest, image: DecodedImage?, diskData: Data?, download: ImageLoadResponse?) async {
        guard let key = request.key else { return }
        let noStore = download?.http?.isNoStore == true
        if let download, request.isKeptApart, let originalKey = request.originalKey {
            // The thumbnail decode threw the full-size pixels away, so only a plain
            // transform has an original image worth keeping in memory; a lazy load's is
            // lazy, which the original's key must never give.
            let original = request.context.thumbnailPixelSize == nil && !request.isLazy ? download.image : nil
            await write(request, image: original, data: download.data, key: originalKey,
                        cacheType: request.context.originalStoreCacheType, memoryOnly: noStore,
                        validators: download.http?.validators)
        }
        guard download != nil || request.isKeptApart else { return }
        var cacheType = request.context.storeCacheType
        if request.isLazy, image?.animation != nil || !request.isDerived {
            cacheType = cacheType.includesMemory ? .memory : .none
        }
        await write(request, image: image, data: diskData, key: key, cacheType: cacheType, memoryOnly: noStore,
                    validators: request.isKeptApart ? nil : download?.http?.validators)
    }

    /// One store, then the validators of the entry it wrote.
    private func write(
        _ request: ImageRequest, image: DecodedImage?, data: Data?, key: String, cacheType: ImageCacheType,
        memoryOnly: Bool, validators: HTTPValidators?
    ) async {
        let cacheType = request.storeCacheType(cacheType, memoryOnly: memoryOnly)
        guard cacheType != .none, image != nil || data != nil else { return }
        // A new entry starts without extended data, so empty validators need no write.
        let extended = cacheType.includesDisk && data != nil ? validators.flatMap { $0.isEmpty ? nil : $0.cacheData } : nil
        guard request.options.contains(.waitStoreCache) else {
            request.cache.storeInBackground(image, data: data, extendedData: extended, forKey: key, cacheType: cacheType)
            return
        }
        do throws(WebImageError) {
            try await request.cache.store(image, data: data, forKey: key, cacheType: cacheType)
            if let extended { try await request.cache.setExtendedData(extended, forKey: key) }
        } catch {
            Self.logger.error("Storing \(key.redactedURLForLog) failed: \(error)")
        }
    }
}

extension Result where Failure == WebImageError {
    /// The outcome of `body`, caught as a value.
    init(_ body: () async throws(WebImageError) -> Success) async {
        do throws(WebImageError) {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
