import Foundation
import WebImage

extension ImageDownloader: ImageLoaderCallbacks {
    /// The callback form, joining the transfer before it returns (so callers queue in
    /// the order they asked); callbacks run on the context's callback queue, else
    /// ``callbackQueue``. See ``WebImageCompat/ImageLoaderCallbacks/requestImage(with:options:context:progress:completed:)``.
    @discardableResult
    public func requestImage(
        with url: URL?, options: WebImageOptions, context: WebImageContext,
        progress: ImageLoaderProgress?, completed: @escaping ImageLoaderCompletion
    ) -> ImageLoadToken {
        let gate = CallbackGate(queue: context.callbackQueue ?? callbackQueue)
        let token = ImageLoadToken(url: url, priority: options.loadPriority)
        let observer = ImageLoadObserver.callbacks(token: token, gate: gate, progress: progress, completed: completed)
        join(url, options: options, context: context, observer: observer) { result in gate.finish { completed(result) } }
        return token
    }
}
