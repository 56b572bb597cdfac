import Foundation

/// What the caller of ``ImageLoader/loadImage(with:options:context:observer:)`` hears
/// while the load runs, and the token it steers the load with.
///
/// The closures run where the loader calls them (for ``ImageDownloader``: progress on the
/// transfer's event loop, partial images on a task of the load, between the decodes of
/// the bytes so far on its decode queue), so they must return at once: hand anything
/// longer to a queue or a stream. They are never called under a library lock.
public struct ImageLoadObserver: Sendable {
    /// Bytes received so far and expected (−1 when unknown), throttled by the loader.
    public var progress: ImageLoaderProgress?
    /// Partial images of a progressive load (``WebImageOptions/progressiveLoad``):
    /// responses with ``ImageLoadResponse/isFinished`` `false`.
    public var partialImage: (@Sendable (ImageLoadResponse) -> Void)?
    /// The caller's handle: priority changes and ``ImageLoadToken/cancel()`` reach the load.
    public var token: ImageLoadToken?
    /// The bytes received so far, with every chunk while the body is read (for
    /// ``ImageDownloader``, on the transfer's event loop): what stage B's incremental decoder
    /// reads (``BodyProgress``) when the manager fetches the body and decodes it itself.
    package var bodySoFar: (@Sendable (Data) -> Void)? = nil
    /// A data-only caller's hold on the finished body while it decodes it itself: until it is
    /// released, a request for the same body joins the transfer instead of fetching again.
    package var bodyLease: BodyLease? = nil

    /// An observer; every part is optional.
    public init(
        progress: ImageLoaderProgress? = nil, partialImage: (@Sendable (ImageLoadResponse) -> Void)? = nil,
        token: ImageLoadToken? = nil
    ) {
        self.progress = progress
        self.partialImage = partialImage
        self.token = token
    }
}
