import Foundation

/// Hooks into an ``ImageManager``'s decisions: SDWebImage's `SDWebImageManagerDelegate`.
///
/// Every method has a default implementation that keeps the manager's normal behaviour,
/// so implement only what you need. The manager keeps its delegate weakly. The decisions
/// (``shouldDownloadImage(for:)``, ``shouldBlockFailedURL(_:error:)``) run on the
/// load's task and must return quickly; ``transformDownloadedImage(_:for:)``
/// runs on the manager's ``ImageManager/decodeQueue``, possibly several at once for different loads. None
/// runs while a library lock is held.
public protocol ImageManagerDelegate: AnyObject, Sendable {
    /// Whether to download `url` after a cache miss. Returning `false` completes the load
    /// with no image and no error. Default `true`.
    func shouldDownloadImage(for url: URL) -> Bool

    /// Whether a failed `url` goes into the failed-URL block list. `nil`, the default,
    /// asks the loader (``ImageLoader/shouldBlockFailedURL(_:error:)``).
    func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool?

    /// Replaces a downloaded image before it is transformed and cached; `nil`, the
    /// default, keeps it. A replaced image is cached without data (the cache encodes it),
    /// since the downloaded bytes no longer describe it. Runs off the callback queue.
    func transformDownloadedImage(_ image: DecodedImage, for url: URL) -> DecodedImage?
}

extension ImageManagerDelegate {
    public func shouldDownloadImage(for url: URL) -> Bool { true }
    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool? { nil }
    public func transformDownloadedImage(_ image: DecodedImage, for url: URL) -> DecodedImage? { nil }
}
