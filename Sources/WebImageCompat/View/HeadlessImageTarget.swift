import Synchronization
import WebImage

/// A ``WebImageTarget`` with no screen: it just holds the image. For command-line
/// programs, servers and tests on Linux.
///
/// ```WebImage/swift
/// let target = HeadlessImageTarget()
/// target.setImage(with: url, completed: { _ in print(target.image?.width ?? 0) })
/// ```
public final class HeadlessImageTarget: WebImageTarget {
    private let current: Mutex<DecodedImage?>
    /// This target's load state.
    public let webImageState = WebImageTargetState()

    /// Creates a target showing `image` (default none).
    public init(image: DecodedImage? = nil) {
        current = Mutex(image)
    }

    /// The image shown; safe from any thread.
    public var image: DecodedImage? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}
