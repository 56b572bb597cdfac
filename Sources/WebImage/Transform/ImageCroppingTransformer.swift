/// Crops every frame to a rectangle, clipped to the image (SDWebImage's `SDImageCroppingTransformer`).
///
/// Key: `ImageCroppingTransformer(rect:X,Y,WxH)`, for example
/// `ImageCroppingTransformer(rect:10,20,100x50)`. A rectangle wholly outside the image
/// makes ``transform(_:forKey:)`` return `nil`.
public struct ImageCroppingTransformer: ImageTransformer {
    /// The region to keep, in pixels of the source image.
    public var rect: PixelRect

    /// Creates a crop to `rect` (source pixels, clipped to the image).
    public init(rect: PixelRect) {
        self.rect = rect
    }

    public var transformerKey: String {
        TransformerKey.make("ImageCroppingTransformer", ["rect": rect.description])
    }

    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        image.mapFrames { $0.cropped(to: rect) }
    }
}
