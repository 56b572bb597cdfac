import WebImage

/// Anything that shows an image: SDWebImage's `UIImageView` / `UIView+WebCache`, for
/// servers, terminals and tests. Conform a class, then call
/// ``setImage(with:placeholder:options:context:manager:progress:completed:)``.
///
/// ```WebImage/swift
/// let target = HeadlessImageTarget()
/// target.setImage(with: url, placeholder: spinnerImage, completed: { result in print(result.cacheType) })
/// ```
///
/// The loading code sets ``image`` from the load's callback queue (by default the
/// managers' serial queue, `ImageManager.callbackQueue`), so conformers must be thread-safe (hence `Sendable`).
///
/// ## Where the load state lives
/// Each target provides its own ``webImageState``: a ``WebImageTargetState`` holding its
/// running operation per key, its ``imageURL`` and its indicator. The target owns the
/// state and the state owns the operations; the operations reach back to the target only
/// weakly, so a target is never kept alive by its loads, and when it goes away its state
/// and registry go with it. There is no global registry to leak into.
public protocol WebImageTarget: AnyObject, Sendable {
    /// The image shown. Set by the loading code on the load's callback queue.
    var image: DecodedImage? { get set }

    /// This target's load state; return the same object every time (a stored `let`).
    var webImageState: WebImageTargetState { get }
}
