/// Mirrors every frame horizontally, vertically or both (SDWebImage's `SDImageFlippingTransformer`).
///
/// Key: `ImageFlippingTransformer(horizontal:true,vertical:false)`. With neither set the
/// image is returned unchanged.
public struct ImageFlippingTransformer: ImageTransformer {
    /// Swap left and right.
    public var horizontal: Bool
    /// Swap top and bottom.
    public var vertical: Bool

    /// Creates a flip along the chosen axes.
    public init(horizontal: Bool, vertical: Bool) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    public var transformerKey: String {
        TransformerKey.make("ImageFlippingTransformer", ["horizontal": "\(horizontal)", "vertical": "\(vertical)"])
    }

    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        // A flip is an EXIF orientation change; reuse its pixel loops.
        let orientation: Orientation
        switch (horizontal, vertical) {
        case (false, false): return image
        case (true, false): orientation = .upMirrored
        case (false, true): orientation = .downMirrored
        case (true, true): orientation = .down
        }
        return image.mapFrames { $0.oriented(orientation) }
    }
}
