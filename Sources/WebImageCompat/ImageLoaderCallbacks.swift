import Dispatch
import Foundation
import WebImage

/// Receives partial images (`isFinished == false`) and then exactly one final result:
/// a response with `isFinished == true` or an error. Runs on the request's callback queue.
public typealias ImageLoaderCompletion = @Sendable (_ result: Result<ImageLoadResponse, WebImageError>) -> Void

/// A loader with the callback form: SDWebImage's `requestImage(with:options:context:progress:completed:)`
/// and a progress closure delivered on a `DispatchQueue`, adapted over the `async`
/// requirement of ``WebImage/ImageLoader``.
///
/// ```swift
/// let token = ImageDownloader.shared.requestImage(with: url, options: [.progressiveLoad],
///                                                 context: WebImageContext(), progress: nil) { result in
///     if case .success(let response) = result, response.isFinished { show(response.image) }
/// }
/// token.cancel()   // this caller only
/// ```
///
/// Why a refinement and not more requirements on ``WebImage/ImageLoader``: the core seam stays
/// free of queues and completion handlers, so a custom loader implements the `async`
/// load only; adopting this protocol (usually with no code at all) adds the callback
/// form. ``WebImage/ImageDownloader`` and ``WebImage/ImageLoadersManager`` adopt it, and
/// ``WebImage/FileImageLoader`` and ``WebImage/DataURLImageLoader`` too.
///
/// Where the callbacks run: on the request's `WebImageContext.callbackQueue`, else
/// on ``callbackQueue``, never on the calling thread.
public protocol ImageLoaderCallbacks: ImageLoader {
    /// The queue the callback form delivers on when a request's context names none.
    /// The default, ``WebImage/ImageDownloader`` and ``WebImage/ImageLoadersManager``
    /// included, is one serial queue shared by every loader that names none (SDWebImage's
    /// default is the main queue, which a Linux process need not be running); a conformer
    /// may return its own.
    var callbackQueue: DispatchQueue { get }

    /// Starts loading `url` with callbacks and returns this caller's token. The default
    /// is an adapter that runs ``WebImage/ImageLoader/loadImage(with:options:context:observer:)``
    /// in a task; a loader with a queue of its own implements it to queue the request
    /// before returning (``WebImage/ImageDownloader`` does).
    ///
    /// Every callback runs on `WebImageContext.callbackQueue`, else on
    /// ``callbackQueue``, never on the calling thread: `progress`, then any partial images
    /// (`isFinished == false`) and exactly one final result. Cancelling the token delivers
    /// ``WebImageCodecs/WebImageError/Code/cancelled`` at once; nothing follows the final result.
    @discardableResult
    func requestImage(
        with url: URL?,
        options: WebImageOptions,
        context: WebImageContext,
        progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> ImageLoadToken
}

extension ImageLoaderCallbacks {
    public var callbackQueue: DispatchQueue { LoaderCallbacks.sharedQueue }

    @discardableResult
    public func requestImage(
        with url: URL?,
        options: WebImageOptions,
        context: WebImageContext,
        progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> ImageLoadToken {
        adaptedRequest(
            with: url, options: options, context: context, progress: progress, callbackQueue: callbackQueue,
            completed: completed)
    }

    /// Loads `url` and returns the final response; partial images are not reported.
    ///
    /// `progress` runs on the context's callback queue, else on ``callbackQueue``; on a
    /// serial queue every report has run when this returns. Cancelling the calling task
    /// cancels this caller's load, which then throws
    /// ``WebImageCodecs/WebImageError/Code/cancelled``; a `nil` or unhandled URL throws
    /// ``WebImageCodecs/WebImageError/Code/invalidURL``.
    public func loadImage(
        with url: URL?,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext(),
        progress: @escaping ImageLoaderProgress
    ) async throws(WebImageError) -> ImageLoadResponse {
        guard let url else { throw WebImageError(.invalidURL, "The image URL is nil") }
        let queue = context.callbackQueue ?? callbackQueue
        let observer = ImageLoadObserver(progress: { received, expected in queue.async { progress(received, expected) } })
        let result: Result<ImageLoadResponse, WebImageError>
        do throws(WebImageError) {
            result = .success(try await loadImage(with: url, options: options, context: context, observer: observer))
        } catch {
            result = .failure(error)
        }
        // The reports are queued, not run: wait for those already queued, so the caller
        // never sees the response before a report of its bytes.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
        return try result.get()
    }
}

extension ImageLoader {
    /// The default callback form, for any loader: runs
    /// ``loadImage(with:options:context:observer:)`` in a task and delivers on the
    /// context's callback queue, else on `callbackQueue`.
    func adaptedRequest(
        with url: URL?, options: WebImageOptions, context: WebImageContext, progress: ImageLoaderProgress?,
        callbackQueue: DispatchQueue, completed: @escaping ImageLoaderCompletion
    ) -> ImageLoadToken {
        let gate = CallbackGate(queue: context.callbackQueue ?? callbackQueue)
        let token = ImageLoadToken(url: url, priority: options.loadPriority)
        guard let url else {
            gate.finish { completed(.failure(WebImageError(.invalidURL, "The image URL is nil"))) }
            return token
        }
        let observer = ImageLoadObserver.callbacks(token: token, gate: gate, progress: progress, completed: completed)
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

/// ``LoaderCallbacks/sharedQueue``: the default ``WebImageCompat/ImageLoaderCallbacks/callbackQueue``.
enum LoaderCallbacks {
    static let sharedQueue = DispatchQueue(label: "WebImage.ImageLoader.callbacks")
}

extension FileImageLoader: ImageLoaderCallbacks {}
extension DataURLImageLoader: ImageLoaderCallbacks {}

extension ImageLoadObserver {
    /// The observer of a callback-form request: progress and partial images reach
    /// `progress` and `completed` through `gate` (so never after the final result).
    static func callbacks(
        token: ImageLoadToken, gate: CallbackGate, progress: ImageLoaderProgress?, completed: @escaping ImageLoaderCompletion
    ) -> ImageLoadObserver {
        var observer = ImageLoadObserver(token: token)
        if let progress { observer.progress = { received, expected in gate.send { progress(received, expected) } } }
        observer.partialImage = { response in gate.send { completed(.success(response)) } }
        return observer
    }
}
