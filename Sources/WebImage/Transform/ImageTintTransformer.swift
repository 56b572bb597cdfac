/// Tints every frame with a colour (SDWebImage's `SDImageTintTransformer`).
///
/// The colour is blended over each pixel by the colour's alpha (opaque colour: a
/// silhouette; half-transparent: a wash), while each pixel keeps its own alpha, so
/// transparent areas stay transparent.
///
/// Key: `ImageTintTransformer(color:rrggbbaa)`, for example `ImageTintTransformer(color:ff000080)`.
public struct ImageTintTransformer: ImageTransformer {
    /// The tint; its alpha is the blend strength.
    public var color: RGBA

    /// Creates a tint with `color`, blended by its alpha.
    public init(color: RGBA) {
        self.color = color
    }

    public var transformerKey: String {
        TransformerKey.make("ImageTintTransformer", ["color": TransformerKey.color(color)])
    }

    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        image.mapFrames { $0.tinted(with: color) }
    }
}
