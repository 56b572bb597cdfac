import Foundation

/// The ways into the pipeline: `async`, ``ImageTask``, a stream, and the three WebImageCompat's
/// operation adapter (the view layer and the callback form) starts its loads with
/// (``loadKey(for:context:)``, ``synchronousHit(_:originalKey:options:context:)``,
/// ``start(_:originalKey:options:context:after:listener:)``). All of them run the
/// pipeline (`ImagePipeline.run`) for an ``ImageTask``.
extension ImageManager {
    /// Loads `url` and returns the image: from memory, from disk, or downloaded and decoded.
    ///
    /// The pipeline runs on the calling task: a memory hit is answered without any hop,
    /// and everything else suspends this task while the library's executors work (see
    /// ``ImageManager``). With ``WebImageOptions/refreshCached`` the first image (the cached
    /// one) is returned while the refresh goes on in a task of its own;
    /// ``loadImageStream(with:options:context:)`` shows the refresh too. Cancelling the
    /// calling task, or ``cancelAll()``, cancels the load. The blocking options
    /// (``WebImageOptions/queryDiskDataSync``, ``WebImageOptions/queryMemoryDataSync``) are
    /// read as their non-blocking forms.
    ///
    /// - Throws: the load's ``WebImageCodecs/WebImageError``; ``WebImageCodecs/WebImageError/Code/cancelled`` when the
    ///   task was cancelled; ``WebImageCodecs/WebImageError/Code/badImageData`` when the load produced
    ///   no image (``WebImageOptions/avoidDecodeImage``: use the callback API or an
    ///   ``ImageLoader`` for data only).
    public func loadImage(
        with url: URL, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
    ) async throws(WebImageError) -> ImageResponse {
        let originalKey = loadKey(for: url, context: context)
        if let hit = try memoryHit(url, originalKey: originalKey, options: options, context: context) { return hit }
        return try await load(url, originalKey: originalKey, options: options, context: context)
    }

    /// A load past the memory cache, on the calling task.
    // Out of line, so a memory hit (above) allocates nothing for the task and request a
    // load keeps while it waits.
    @inline(never)
    private func load(
        _ url: URL, originalKey: String?, options: WebImageOptions, context: WebImageContext
    ) async throws(WebImageError) -> ImageResponse {
        if options.contains(.refreshCached) {
            return try await start(url, originalKey: originalKey, options: options, context: context, listener: nil).response
        }
        let task = ImageTask(url: url, priority: options.loadPriority, reportsProgress: false)
        if let request = prepare(url, originalKey: originalKey, options: options, context: context, task: task) {
            register(task)
            await withTaskCancellationHandler {
                await pipeline.run(request, task)
            } onCancel: {
                task.cancel()
            }
        }
        return try await task.response
    }

    /// Starts loading `url` in a task of its own and returns its ``ImageTask``: progress,
    /// previews, priority changes, cancellation and the final ``ImageTask/response``.
    ///
    /// Runs on the caller's thread only long enough to look in the memory cache and
    /// start the load; a memory hit gives a task that is already completed.
    public func imageTask(
        with url: URL, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
    ) -> ImageTask {
        let originalKey = loadKey(for: url, context: context)
        do {
            if let hit = try memoryHit(url, originalKey: originalKey, options: options, context: context) {
                return ImageTask(url: url, finished: .success(hit))
            }
        } catch {
            return ImageTask(url: url, finished: .failure(error))
        }
        return start(url, originalKey: originalKey, options: options, context: context, listener: nil)
    }

    /// Loads `url` and yields every result: partial images with
    /// ``WebImageOptions/progressiveLoad`` (`isFinished == false`), the final image, and
    /// with ``WebImageOptions/refreshCached`` a refreshed image after the cached one.
    ///
    /// The stream ends after the last result and throws the load's error. Ending the
    /// iteration (or cancelling its task) cancels the load.
    ///
    /// Bounded: at most two results wait for a reader that falls behind. A partial image
    /// it has not taken yet gives way to the newer ones; a finished result never does (a
    /// load has at most two, the cached image and the refreshed one, and a refresh shows
    /// no partial images).
    public func loadImageStream(
        with url: URL, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
    ) -> AsyncThrowingStream<ImageLoadResult, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ImageLoadResult, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(2))
        let task = start(url, originalKey: loadKey(for: url, context: context), options: options, context: context) { event in
            guard case .result(let result, let isLast) = event else { return }
            if let result {
                if let error = result.error {
                    continuation.finish(throwing: error)
                    return
                }
                continuation.yield(result)
            }
            if isLast { continuation.finish() }
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        return stream
    }

    /// Starts the pipeline for `url` in a new Swift task, with `listener` hearing the
    /// results and progress; returns the load's ``ImageTask``. `originalKey` is the load's
    /// key filter answer (``loadKey(for:context:)``).
    ///
    /// - Parameter delivered: a synchronous hit the callback form already delivered
    ///   (``WebImageOptions/queryMemorySync`` with ``WebImageOptions/refreshCached``): the
    ///   pipeline goes straight to the refresh, with the request the hit was read for.
    package func start(
        _ url: URL, originalKey: String?, options: WebImageOptions, context: WebImageContext,
        after delivered: SynchronousHit? = nil, listener: (@Sendable (ImageTask.Event) -> Void)?
    ) -> ImageTask {
        let task = ImageTask(url: url, priority: options.loadPriority, listener: listener)
        guard let request = delivered?.request
            ?? prepare(url, originalKey: originalKey, options: options, context: context, task: task) else {
            return task
        }
        register(task)
        task.setRunner(Task { [pipeline] in await pipeline.run(request, task, deliveredHit: delivered?.hit) })
        return task
    }

    /// The load's request (keys, cache, loader, what each stage reads), or `nil` after
    /// finishing `task` with the reason it must not run: an empty URL, or a URL on the
    /// block list.
    // Out of line: the request's temporaries (its contexts) would otherwise have room in
    // the frame `loadImage` keeps for as long as the load waits.
    @inline(never)
    func prepare(
        _ url: URL, originalKey: String?, options: WebImageOptions, context: WebImageContext, task: ImageTask
    ) -> ImageRequest? {
        guard !url.absoluteString.isEmpty else {
            task.finish(.failure(WebImageError(.invalidURL, "The image URL is empty"), url: url), isLast: true)
            return nil
        }
        if !options.contains(.retryFailed), let cause = failedURLs.entry(for: url) {
            WebImageMetrics.blockedLoads.increment()
            let error = WebImageError(
                .blackListed, "\(url.redactedForLog) failed before (\(cause.code.name): \(cause.message)); pass retryFailed to try it again",
                underlying: cause)
            task.finish(.failure(error, url: url), isLast: true)
            return nil
        }
        return ImageRequest(url: url, options: options, context: context, originalKey: originalKey, manager: self)
    }

    /// The key filter's answer for a load of `url` (``originalCacheKey(for:context:)``), asked
    /// once per load by each way in and handed to every step that needs a key; `nil` for an
    /// empty URL, which no load runs, so the filter never sees one.
    package func loadKey(for url: URL, context: WebImageContext) -> String? {
        url.absoluteString.isEmpty ? nil : originalCacheKey(for: url, context: context)
    }

    /// The fast path: a memory hit answered on the calling thread, with the same checks
    /// the pipeline makes first (cancellation, the block list). `nil` when the load must
    /// go through the pipeline (also when cached images follow HTTP freshness, which the
    /// pipeline checks on the disk entry).
    func memoryHit(
        _ url: URL, originalKey: String?, options: WebImageOptions, context: WebImageContext
    ) throws(WebImageError) -> ImageResponse? {
        guard options.isDisjoint(with: [.refreshCached, .fromLoaderOnly, .queryMemoryData, .avoidDecodeImage]),
              context.queryCacheType.includesMemory, let originalKey,
              (context.httpCachePolicy ?? httpCachePolicy) == .ignoreHeaders
        else { return nil }
        let key = cacheKey(original: originalKey, options: options, context: context)
        guard var image = (context.imageCache ?? imageCache).imageFromMemory(forKey: key) else { return nil }
        if Task.isCancelled { throw WebImageError.cancelled("The image load was cancelled") }
        if !options.contains(.retryFailed), failedURLs.contains(url) { return nil }
        if options.contains(.decodeFirstFrameOnly) { image = image.firstFrame }
        WebImageMetrics.memoryHits.increment()
        return ImageResponse(image: image, url: url, cacheType: .memory, cacheKey: key)
    }

    /// The cache hit SDWebImage's synchronous options ask the callback form to deliver
    /// before it returns, on the calling thread: with ``WebImageOptions/queryMemorySync``
    /// a memory hit, with ``WebImageOptions/queryDiskDataSync`` also a disk hit read and
    /// decoded here (``ImageCaching/queryImageSynchronously(forKey:options:context:)``).
    /// `nil` when there is none, or the hit may not be used as it is (under
    /// ``HTTPCachePolicy/respectHeaders`` unless refreshing or cache-only). With
    /// ``WebImageOptions/refreshCached``,
    /// ``start(_:originalKey:options:context:after:listener:)`` takes it to go on with the
    /// refresh. The checks a load makes before it runs (the URL is not empty, nor on the
    /// block list) are made here first.
    package func synchronousHit(
        _ url: URL, originalKey: String?, options: WebImageOptions, context: WebImageContext
    ) -> SynchronousHit? {
        let blocking = options.contains(.queryDiskDataSync)
        guard options.contains(.queryMemorySync) || blocking, !options.contains(.fromLoaderOnly),
              context.queryCacheType != .none, let original = originalKey,
              options.contains(.retryFailed) || !failedURLs.contains(url) else { return nil }
        let refresh = options.contains(.refreshCached)
        let policy = context.httpCachePolicy ?? httpCachePolicy
        guard policy == .ignoreHeaders || refresh || options.contains(.fromCacheOnly) else { return nil }
        let request = ImageRequest(url: url, options: options, context: context, originalKey: original, manager: self)
        guard let key = request.key else { return nil }
        let query = request.resultQuery
        var hit: ImageCacheQueryResult
        if blocking, let answer = request.cache.queryImageSynchronously(forKey: key, options: query.options, context: query.context) {
            hit = answer
        } else if !query.options.contains(.queryDiskOnly), !query.options.contains(.queryMemoryData),
                  let image = request.cache.imageFromMemory(forKey: key) {
            hit = ImageCacheQueryResult(image: image, cacheType: .memory)
            WebImageMetrics.memoryHits.increment()
        } else {
            return nil
        }
        guard hit.image != nil else { return nil }
        if options.contains(.decodeFirstFrameOnly) { hit.image = hit.image?.firstFrame }
        return SynchronousHit(result: request.result(hit), hit: hit, request: request)
    }
}

/// A cache hit the callback form delivers before it returns
/// (``ImageManager/synchronousHit(_:originalKey:options:context:)``): its result, and the
/// request a refresh after it goes on with, so the load's request is made once.
package struct SynchronousHit: Sendable {
    package let result: ImageLoadResult
    let hit: ImageCacheQueryResult
    let request: ImageRequest
}
