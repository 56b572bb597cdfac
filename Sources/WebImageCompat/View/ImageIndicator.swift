import WebImage

/// Shows that a target is loading: SDWebImage's `SDWebImageIndicator`.
///
/// Set one as a target's ``WebImageTarget/imageIndicator``; the loading code starts it
/// when a load begins, reports progress, and stops it when the load ends. Calls come
/// from the caller of `setImage` (start) and the load's callback queue (progress, stop).
public protocol ImageIndicator: AnyObject, Sendable {
    /// A load began.
    func startAnimating()
    /// The load ended (success, failure or cancellation).
    func stopAnimating()
    /// The fraction received, 0…1 (0 while the size is unknown).
    func updateProgress(_ progress: Double)
}
