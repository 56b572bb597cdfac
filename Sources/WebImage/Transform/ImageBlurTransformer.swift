/// Blurs every frame with a gaussian (SDWebImage's `SDImageBlurTransformer`).
///
/// `radius` is the gaussian's standard deviation in pixels, as in CSS `blur()`; see
/// ``WebImageCodecs/PixelBuffer/blurred(radius:)`` for how it is computed. Radius 0 returns the image unchanged.
///
/// Key: `ImageBlurTransformer(radius:R)`, for example `ImageBlurTransformer(radius:2.5)`.
public struct ImageBlurTransformer: ImageTransformer {
    /// Standard deviation in pixels; clamped to ``WebImageCodecs/PixelBuffer/maxBlurRadius``.
    public var radius: Double

    /// Creates a blur with standard deviation `radius` pixels.
    public init(radius: Double) {
        self.radius = radius
    }

    public var transformerKey: String {
        TransformerKey.make("ImageBlurTransformer", ["radius": TransformerKey.number(radius)])
    }

    /// Returns `nil` when the radius is negative or not finite.
    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        guard radius.isFinite, radius >= 0 else { return nil }
        return image.mapFrames { $0.blurred(radius: radius) }
    }
}
