import Foundation

/// The operation adapter behind WebImageCompat's view layer and callback form of
/// ``ImageManager``: it starts the load's ``ImageTask`` and delivers its results on the
/// load's callback queue (its context's, else the one the adapter's caller names: WebImageCompat
/// keeps it, so the manager owns no queue). SDWebImage's synchronous answers
/// (``WebImageOptions/queryMemorySync``, ``WebImageOptions/queryDiskDataSync``) live here
/// and nowhere else.
extension ImageManager {
    /// A load the adapter started: its URL, and its task unless it was answered before
    /// ``startOperation(with:options:context:progress:callbackQueue:handler:)`` returned.
    package struct StartedOperation: Sendable {
        package let url: URL?
        package let task: ImageTask?
    }

    /// The adapter behind the callback form and the view layer; `handler` also learns
    /// which result is the last (a `nil` result with `isLast` ends the load without a
    /// further result: a refresh that found the image unchanged). Results and progress
    /// run on the context's queue, else on `callbackQueue`.
    package func startOperation(
        with url: URL?, options: WebImageOptions, context: WebImageContext, progress: ImageLoaderProgress?,
        callbackQueue: DispatchQueue, handler: @escaping @Sendable (_ result: ImageLoadResult?, _ isLast: Bool) -> Void
    ) -> StartedOperation {
        let gate = CallbackGate(queue: context.deliveryQueue ?? callbackQueue)
        guard let url, !url.absoluteString.isEmpty else {
            let error = WebImageError(.invalidURL, "The image URL is empty")
            gate.finish { handler(.failure(error, url: url), true) }
            return StartedOperation(url: url, task: nil)
        }
        let originalKey = loadKey(for: url, context: context)
        let cached = synchronousHit(url, originalKey: originalKey, options: options, context: context)
        if let cached {
            let refresh = options.contains(.refreshCached)
            handler(cached.result, !refresh)
            guard refresh else { return StartedOperation(url: url, task: nil) }
        }
        let task = start(url, originalKey: originalKey, options: options, context: context, deliveredHit: cached?.hit) { event in
            switch event {
            case .progress(let received, let expected):
                if let progress { gate.send { progress(received, expected) } }
            case .result(let result, let isLast):
                if isLast {
                    gate.finish { handler(result, true) }
                } else {
                    gate.send { handler(result, false) }
                }
            }
        }
        return StartedOperation(url: url, task: task)
    }

    /// The cache hit the options ask to deliver before `loadImage` returns, if there is one.
    private func synchronousHit(
        _ url: URL, originalKey: String?, options: WebImageOptions, context: WebImageContext
    ) -> (hit: ImageCacheQueryResult, result: ImageLoadResult)? {
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
        return (hit, request.result(hit))
    }
}
