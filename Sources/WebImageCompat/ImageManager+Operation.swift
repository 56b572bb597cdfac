import Dispatch
import Foundation
import WebImage

/// The operation adapter behind the view layer and the callback form of
/// ``WebImage/ImageManager``: it starts the load's ``WebImage/ImageTask`` and delivers its
/// results on the load's callback queue (its context's, else ``callbackQueue``), so the core
/// manager owns no queue and knows no callback. SDWebImage's
/// synchronous answers (``WebImage/WebImageOptions/queryMemorySync``,
/// ``WebImage/WebImageOptions/queryDiskDataSync``) are delivered here, on the calling thread.
extension ImageManager {
    /// A load the adapter started: its URL, and its task unless it was answered before
    /// ``startOperation(with:options:context:progress:handler:)`` returned.
    struct StartedOperation: Sendable {
        let url: URL?
        let task: ImageTask?
    }

    /// The adapter behind the callback form and the view layer; `handler` also learns
    /// which result is the last (a `nil` result with `isLast` ends the load without a
    /// further result: a refresh that found the image unchanged). Results and progress
    /// run on the context's queue, else on `callbackQueue`.
    func startOperation(
        with url: URL?, options: WebImageOptions, context: WebImageContext, progress: ImageLoaderProgress?,
        handler: @escaping @Sendable (_ result: ImageLoadResult?, _ isLast: Bool) -> Void
    ) -> StartedOperation {
        let gate = CallbackGate(queue: context.callbackQueue ?? callbackQueue)
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
        let task = start(url, originalKey: originalKey, options: options, context: context, after: cached) { event in
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
}
