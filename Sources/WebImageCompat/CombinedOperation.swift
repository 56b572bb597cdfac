import Foundation
import WebImage

/// One load started by the view layer (``WebImageTarget/setImage(with:placeholder:options:context:manager:progress:completed:)``)
/// or the callback form of ``WebImage/ImageManager`` (SDWebImage's
/// `SDWebImageCombinedOperation`): a thin handle over the load's ``WebImage/ImageTask`` and the
/// delivery of its results on the load's callback queue.
///
/// ``cancel()`` stops whichever part is running (the cache query, the download, the
/// decode) and the load's completion receives ``WebImageCodecs/WebImageError/Code/cancelled`` exactly
/// once, on the load's callback queue, unless the load had already ended. After that
/// nothing more is delivered. Thread-safe; cancelling again does nothing.
public final class CombinedOperation: Sendable {
    /// The URL being loaded.
    public let url: URL?
    /// The load, or `nil` when it was answered before `loadImage` returned.
    let task: ImageTask?

    /// The operation of the load `started` (``WebImage/ImageManager``'s operation adapter).
    init(_ started: ImageManager.StartedOperation) {
        url = started.url
        task = started.task
    }

    /// The load's priority. A change while the download is queued reorders the
    /// downloader's queue; a change before the download starts (during the cache query)
    /// is the priority it starts with.
    public var priority: ImageLoadPriority {
        get { task?.priority ?? .normal }
        set { task?.priority = newValue }
    }

    /// Whether ``cancel()`` was called before the load ended.
    public var isCancelled: Bool { task?.state == .cancelled }

    /// Whether the load ended: its last result was delivered (or queued), or it was cancelled.
    public var isFinished: Bool { task?.isEnded ?? true }

    /// Stops the load. The completion gets ``WebImageCodecs/WebImageError/Code/cancelled`` once, on the
    /// callback queue; does nothing once the load ended.
    public func cancel() {
        task?.cancel()
    }
}
