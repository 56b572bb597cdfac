/// Composes every frame over an opaque colour, so the result has no transparency
/// (an image proxy's `background`, or the flattening before a format without alpha).
///
/// Key: `ImageBackgroundTransformer(color:rrggbbaa)`; the colour's own alpha is ignored.
public struct ImageBackgroundTransformer: ImageTransformer {
    public var color: RGBA

    /// Creates a flattening onto `color` (white by default).
    public init(color: RGBA = RGBA(r: 255, g: 255, b: 255)) {
        self.color = RGBA(r: color.r, g: color.g, b: color.b, a: 255)
    }

    public var transformerKey: String {
        TransformerKey.make("ImageBackgroundTransformer", ["color": TransformerKey.color(color)])
    }

    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        image.mapFrames { $0.flattened(onto: color) }
    }
}
