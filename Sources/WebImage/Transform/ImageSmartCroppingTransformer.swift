/// Crops every frame to `size` around its most salient region (an image proxy's smart
/// gravity, `g:sm`); see ``WebImageCodecs/PixelBuffer/attentionWindow(size:)``. The window is found on
/// the first frame and cut from every frame.
///
/// Key: `ImageSmartCroppingTransformer(size:WxH)`.
public struct ImageSmartCroppingTransformer: ImageTransformer {
    public var size: PixelSize

    public init(size: PixelSize) {
        self.size = size
    }

    public var transformerKey: String {
        TransformerKey.make("ImageSmartCroppingTransformer", ["size": size.description])
    }

    /// Returns `nil` for an empty size.
    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        guard size.width > 0, size.height > 0 else { return nil }
        let rect = image.pixels.attentionWindow(size: size)
        return image.mapFrames { $0.cropped(to: rect) }
    }
}
