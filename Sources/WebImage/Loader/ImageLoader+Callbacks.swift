import Dispatch
import Foundation

/// ``LoaderCallbacks/sharedQueue``: the default ``ImageLoader/callbackQueue``.
enum LoaderCallbacks {
    static let sharedQueue = DispatchQueue(label: "WebImage.ImageLoader.callbacks")
}

extension ImageLoader {
    /// Starts loading `url` with callbacks and returns this caller's token: an adapter
    /// that runs ``loadImage(with:options:context:observer:)`` in a task.
    ///
    /// Every callback runs on ``ImageLoaderContext/callbackQueue``, else the loader's
    /// ``callbackQueue``, never on the calling thread: `progress`, then any partial images
    /// (`isFinished == false`) and exactly one final result. Cancelling the token delivers
    /// ``WebImageError/Code/cancelled`` at once; nothing follows the final result.
    @discardableResult
    public func requestImage(
        with url: URL?,
        options: DownloaderOptions,
        context: ImageLoaderContext,
        progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> ImageLoadToken {
        let gate = CallbackGate(queue: context.callbackQueue ?? callbackQueue)
        let token = ImageLoadToken(url: url, priority: options.priority)
        guard let url else {
            gate.finish { completed(.failure(WebImageError(.invalidURL, "The image URL is nil"))) }
            return token
        }
        var observer = ImageLoadObserver(token: token)
        if let progress { observer.progress = { received, expected in gate.send { progress(received, expected) } } }
        observer.partialImage = { response in gate.send { completed(.success(response)) } }
        let task = Task {
            do throws(WebImageError) {
                let response = try await loadImage(with: url, options: options, context: context, observer: observer)
                gate.finish { completed(.success(response)) }
            } catch {
                gate.finish { completed(.failure(error)) }
            }
        }
        token.onCancel {
            task.cancel()
            gate.finish { completed(.failure(.cancelled())) }
        }
        return token
    }
}
