/// Pixelates every frame in square blocks of `size` pixels (an image proxy's `pixelate`).
///
/// Key: `ImagePixelatingTransformer(size:N)`. Sizes of 0 and 1 leave the image unchanged.
public struct ImagePixelatingTransformer: ImageTransformer {
    public var size: Int

    public init(size: Int) {
        self.size = max(0, size)
    }

    public var transformerKey: String {
        TransformerKey.make("ImagePixelatingTransformer", ["size": "\(size)"])
    }

    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        size <= 1 ? image : image.mapFrames { $0.pixelated(size: size) }
    }
}
