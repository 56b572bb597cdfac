import Dispatch
import Foundation
import WebImage

extension ImageLoadersManager: ImageLoaderCallbacks {
    /// Hands the callback form to the loader that handles `url`, so a loader with a queue
    /// of its own (``WebImage/ImageDownloader``) queues the request before this returns; with none,
    /// fails with ``WebImageCodecs/WebImageError/Code/invalidURL`` on the context's callback queue, else
    /// on ``WebImageCompat/ImageLoaderCallbacks/callbackQueue``.
    ///
    /// A member that does not adopt ``WebImageCompat/ImageLoaderCallbacks`` gets the default adapter
    /// (its `async` load in a task, delivered on the same queues). Telling the two apart is
    /// the one cast of the adapter layer: the members are core loaders, and only the
    /// callback form has anything to gain from a member's own implementation.
    @discardableResult
    public func requestImage(
        with url: URL?, options: WebImageOptions, context: WebImageContext,
        progress: ImageLoaderProgress?, completed: @escaping ImageLoaderCompletion
    ) -> ImageLoadToken {
        guard let loader = loader(for: url) else {
            let error = refusal(of: url)
            (context.callbackQueue ?? callbackQueue).async { completed(.failure(error)) }
            return ImageLoadToken(url: url)
        }
        if let callbacks = loader as? any ImageLoaderCallbacks {
            return callbacks.requestImage(with: url, options: options, context: context, progress: progress, completed: completed)
        }
        return loader.adaptedRequest(
            with: url, options: options, context: context, progress: progress, callbackQueue: callbackQueue,
            completed: completed)
    }
}
