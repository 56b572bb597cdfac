/// Sharpens every frame with an unsharp mask of standard deviation `sigma` pixels (an
/// image proxy's `sharpen`); see ``WebImageCodecs/PixelBuffer/sharpened(sigma:amount:)``.
///
/// Key: `ImageSharpeningTransformer(sigma:S)`. Sigma 0 leaves the image unchanged.
public struct ImageSharpeningTransformer: ImageTransformer {
    public var sigma: Double

    public init(sigma: Double) {
        self.sigma = sigma
    }

    public var transformerKey: String {
        TransformerKey.make("ImageSharpeningTransformer", ["sigma": TransformerKey.number(sigma)])
    }

    /// Returns `nil` for a negative or non-finite sigma.
    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        guard sigma.isFinite, sigma >= 0 else { return nil }
        return sigma == 0 ? image : image.mapFrames { $0.sharpened(sigma: sigma) }
    }
}
