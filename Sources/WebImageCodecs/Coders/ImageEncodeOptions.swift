/// How to encode.
public struct ImageEncodeOptions: Sendable, Hashable {
    /// Lossy quality from 0 (smallest) to 1 (best). Default 0.9. Ignored by lossless formats.
    ///
    /// Clamped to 0…1 when set, in the initializer and by assignment alike: below 0
    /// (`-.infinity` included) becomes 0, above 1 (`.infinity` included) becomes 1, and
    /// NaN becomes the default 0.9, so encoders can turn it into an integer without trapping.
    public var quality: Double = 0.9 { didSet { quality = Self.clampedQuality(quality) } }
    /// For formats with both modes (WebP): encode losslessly. Default `false`.
    public var lossless: Bool = false
    /// Encode only the first frame of an animation.
    public var firstFrameOnly: Bool = false

    public init(quality: Double = 0.9, lossless: Bool = false, firstFrameOnly: Bool = false) {
        self.quality = Self.clampedQuality(quality)
        self.lossless = lossless
        self.firstFrameOnly = firstFrameOnly
    }

    /// `quality` as a valid ``quality``: NaN gives the default 0.9, others are clamped to 0…1.
    static func clampedQuality(_ quality: Double) -> Double {
        quality.isNaN ? 0.9 : min(max(quality, 0), 1)
    }
}
