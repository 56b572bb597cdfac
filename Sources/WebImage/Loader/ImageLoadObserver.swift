/// What the caller of ``ImageLoader/loadImage(with:options:context:observer:)`` hears
/// while the load runs, and the token it steers the load with.
///
/// The closures run on the loader's own threads (for ``ImageDownloader``: progress on the
/// transfer's event loop, partial images on its decode queue), so they must return at
/// once: hand anything longer to a queue or a stream. They are never called under a
/// library lock.
public struct ImageLoadObserver: Sendable {
    /// Bytes received so far and expected (−1 when unknown), throttled by the loader.
    public var progress: ImageLoaderProgress?
    /// Partial images of a progressive load (``WebImageOptions/progressiveLoad``):
    /// responses with ``ImageLoadResponse/isFinished`` `false`.
    public var partialImage: (@Sendable (ImageLoadResponse) -> Void)?
    /// The caller's handle: priority changes and ``ImageLoadToken/cancel()`` reach the load.
    public var token: ImageLoadToken?

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
