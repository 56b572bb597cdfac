import Foundation

/// The `async` entry points; they run the same pipeline as the callback form.
extension ImageManager {
    /// Loads `url` and returns the image: from memory, from disk, or downloaded and decoded.
    ///
    /// A memory hit is answered on the calling task without a hop to any queue (the
    /// pipeline's queues are not involved); everything else runs on the library's
    /// executors (disk I/O pool, network event loops, ``DecodeQueue``) while this task
    /// is suspended. With ``WebImageOptions/refreshCached`` the first image (the cached
    /// one) is returned; ``loadImageStream(with:options:context:)`` shows the refresh too.
    /// Cancelling the calling task cancels the load.
    ///
    /// - Throws: the load's ``WebImageError``; ``WebImageError/Code/cancelled`` when the
    ///   task was cancelled; ``WebImageError/Code/badImageData`` when the load produced
    ///   no image (``WebImageOptions/avoidDecodeImage``: use the callback API or an
    ///   ``ImageLoader`` for data only).
    public func loadImage(
        with url: URL, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
    ) async throws(WebImageError) -> ImageResponse {
        if let hit = try memoryHit(url, options: options, context: context) { return hit }
        return try await imageTask(with: url, options: options, context: context).response
    }

    /// Starts loading `url` and returns its ``ImageTask``: progress, previews, priority
    /// changes, cancellation and the final ``ImageTask/response``.
    ///
    /// Runs on the caller's thread only long enough to look in the memory cache and
    /// start the load; a memory hit gives a task that is already completed.
    public func imageTask(
        with url: URL, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
    ) -> ImageTask {
        do {
            if let hit = try memoryHit(url, options: options, context: context) {
                return ImageTask(url: url, finished: .success(hit))
            }
        } catch {
            return ImageTask(url: url, finished: .failure(error))
        }
        let task = ImageTask(url: url, priority: options.loadPriority)
        let operation = startLoad(
            with: url, options: options, context: context,
            progress: { received, expected in task.reportProgress(received: received, expected: expected) }
        ) { result, isLast in
            task.receive(result, isLast: isLast)
        }
        task.attach(operation)
        return task
    }

    /// Loads `url` and yields every result: partial images with
    /// ``WebImageOptions/progressiveLoad`` (`isFinished == false`), the final image, and
    /// with ``WebImageOptions/refreshCached`` a refreshed image after the cached one.
    ///
    /// The stream ends after the last result and throws the load's error. Ending the
    /// iteration (or cancelling its task) cancels the load. The load's callback queue
    /// should be serial (the default) so results arrive in order.
    public func loadImageStream(
        with url: URL, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
    ) -> AsyncThrowingStream<ImageLoadResult, any Error> {
        AsyncThrowingStream { continuation in
            let operation = startLoad(with: url, options: options, context: context, progress: nil) { result, isLast in
                if let result {
                    if let error = result.error {
                        continuation.finish(throwing: error)
                        return
                    }
                    continuation.yield(result)
                }
                if isLast { continuation.finish() }
            }
            continuation.onTermination = { _ in operation.cancel() }
        }
    }

    /// The fast path of the `async` API: a memory hit answered on the calling task, with
    /// the same checks the pipeline makes first (cancellation, the block list). `nil`
    /// when the load must go through the pipeline.
    private func memoryHit(
        _ url: URL, options: WebImageOptions, context: WebImageContext
    ) throws(WebImageError) -> ImageResponse? {
        guard options.isDisjoint(with: [.refreshCached, .fromLoaderOnly, .queryMemoryData, .avoidDecodeImage]),
              context.queryCacheType.includesMemory, !url.absoluteString.isEmpty,
              let key = cacheKey(for: url, options: options, context: context),
              var image = (context.imageCache ?? imageCache).imageFromMemory(forKey: key)
        else { return nil }
        if Task.isCancelled { throw WebImageError.cancelled("The image load was cancelled") }
        if !options.contains(.retryFailed), failedURLs.contains(url) { return nil }
        if options.contains(.decodeFirstFrameOnly) { image = image.firstFrame }
        WebImageMetrics.memoryHits.increment()
        return ImageResponse(image: image, url: url, cacheType: .memory, cacheKey: key)
    }
}
