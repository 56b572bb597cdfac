/// Rotates every frame by any angle (SDWebImage's `SDImageRotationTransformer`).
///
/// Positive angles turn counter-clockwise, as in SDWebImage. Area the rotated image does
/// not cover is transparent; edges are anti-aliased by bilinear sampling. Multiples of
/// 90° that keep the whole image move pixels exactly, without resampling.
///
/// Key: `ImageRotationTransformer(angle:DEGREES,fitSize:BOOL)`, for example
/// `ImageRotationTransformer(angle:45,fitSize:true)`.
public struct ImageRotationTransformer: ImageTransformer {
    /// The angle in degrees, counter-clockwise.
    public var angle: Double
    /// `true`: the canvas grows to the rotated image's bounding box so nothing is cut
    /// (90° swaps width and height). `false`: the canvas keeps the original size and
    /// the corners that leave it are cut off.
    public var fitSize: Bool

    /// Creates a rotation by `angle` degrees counter-clockwise; `fitSize` defaults to `true`.
    public init(angle: Double, fitSize: Bool = true) {
        self.angle = angle
        self.fitSize = fitSize
    }

    public var transformerKey: String {
        TransformerKey.make("ImageRotationTransformer", ["angle": TransformerKey.number(angle), "fitSize": "\(fitSize)"])
    }

    /// Returns `nil` for a non-finite angle or a canvas above
    /// ``ImageTransformers/maxOutputPixelCount``.
    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        guard angle.isFinite else { return nil }
        let canvas: PixelSize
        if fitSize {
            guard let size = image.pixels.rotatedBoundingSize(degrees: angle) else { return nil }
            canvas = size
        } else {
            canvas = PixelSize(width: image.width, height: image.height)
        }
        guard ImageTransformers.isAllowedOutput(width: canvas.width, height: canvas.height) else { return nil }
        return image.mapFrames { $0.rotated(degrees: angle, canvas: canvas) }
    }
}
