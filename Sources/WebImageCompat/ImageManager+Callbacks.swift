import Foundation
import Dispatch
import WebImage

/// The callback form: SDWebImage's `loadImage(with:options:context:progress:completed:)`
/// over the same operation adapter as the view layer (``WebImageTarget``): it starts the
/// load's ``WebImage/ImageTask`` and delivers its results on the callback queue.
extension ImageManager {
    /// Loads `url`: from the caches, else from the loader; transforms and stores it.
    ///
    /// `completed` runs on the context's callback queue (default `callbackQueue`) with
    /// any partial images (``WebImage/WebImageOptions/progressiveLoad``, `isFinished == false`),
    /// then the final result or error. With ``WebImage/WebImageOptions/refreshCached`` a cached
    /// image may be followed by a second, refreshed one. `progress` gets bytes received
    /// and expected, on the same queue.
    ///
    /// Synchronous answers, on the calling thread before this returns: a memory hit with
    /// ``WebImage/WebImageOptions/queryMemorySync``; with ``WebImage/WebImageOptions/queryDiskDataSync`` also a
    /// disk hit, read and decoded on the calling thread, when the cache answers
    /// ``WebImage/ImageCaching/queryImageSynchronously(forKey:options:context:)`` (an ``WebImageCompat/ImageCache``
    /// does; other caches give a memory hit only). Both
    /// only when the hit may be used as it is (not under ``WebImage/HTTPCachePolicy/respectHeaders``).
    ///
    /// - Returns: the operation; cancelling it delivers ``WebImageCodecs/WebImageError/Code/cancelled`` once.
    @discardableResult
    public func loadImage(
        with url: URL?,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext(),
        progress: ImageLoaderProgress? = nil,
        completed: @escaping @Sendable (ImageLoadResult) -> Void
    ) -> CombinedOperation {
        CombinedOperation(startOperation(with: url, options: options, context: context, progress: progress) { result, _ in
            if let result { completed(result) }
        })
    }

    /// The serial queue the callback form and the view layer deliver a manager's results
    /// on when the load's context names none: one queue WebImageCompat keeps for every
    /// manager (as SDWebImage delivers every manager's on the main queue), so the core
    /// manager owns no queue.
    public var callbackQueue: DispatchQueue { ManagerCallbacks.sharedQueue }
}

enum ManagerCallbacks {
    static let sharedQueue = DispatchQueue(label: "WebImage.ImageManager.callbacks")
}
