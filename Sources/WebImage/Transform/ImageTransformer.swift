/// Turns one decoded image into another (resize, crop, rotate, …), SDWebImage's `SDImageTransformer`:
/// the seam for transforms of one's own; the built-ins are ``ImageTransform`` values.
///
/// A transformer is a value describing *what* to do; ``transformerKey`` names exactly that,
/// and the manager appends it to the cache key, so a transformed image is cached apart
/// from its original and from other transforms.
///
/// ## Key format
/// Built-in keys (``ImageTransform``) read `Name(label:value,label:value)`, for example
/// `ImageResizingTransformer(size:400x300,mode:aspectFill)`. Values are written the same
/// way on every run and platform:
/// - whole numbers as integers (`45`), other numbers in Swift's shortest round-trip
///   decimal form (`22.5`);
/// - sizes as `WxH`, colours as lowercase `rrggbbaa` hex, Booleans as `true`/`false`,
///   enumerations by case name.
///
/// Keys contain only ASCII letters, digits and `( ) : , . - +`: no `/`, spaces or
/// control characters, so they are safe in file names and URLs as well as in hashed keys.
/// ``ImageTransform/pipeline(_:)`` joins its members' keys with `-`. Custom transformers
/// should follow the same rules: two transformers with equal keys must produce equal output.
///
/// ## Animated images
/// ``transform(_:forKey:)`` transforms every frame. Whether an animated image is
/// transformed at all is the caller's decision (SDWebImage's `transformAnimatedImage`);
/// ``ImageTransform/apply(_:to:forKey:transformAnimatedImage:)`` applies that rule.
///
/// Sizes and positions are in pixels; the image's `scale`, `format`, `orientation`,
/// frame durations and loop count are kept.
///
/// Transformers are `Sendable` and stateless: ``transform(_:forKey:)`` may run on any
/// thread, several at once. It is CPU-bound, so call it off latency-sensitive threads.
public protocol ImageTransformer: Sendable {
    /// A stable text naming this transform and all its parameters; see the key format above.
    var transformerKey: String { get }

    /// Returns the transformed image, or `nil` when the transform cannot apply (for
    /// example a crop outside the image, or an output larger than
    /// ``ImageTransform/maxOutputPixelCount``).
    ///
    /// - Parameters:
    ///   - image: The image to transform; every frame is transformed.
    ///   - key: The cache key of the source image, for transformers that depend on it;
    ///     the built-ins ignore it.
    func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage?
}
