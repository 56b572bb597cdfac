/// How to encode.
public struct ImageEncodeOptions: Sendable, Hashable {
    /// Lossy quality from 0 (smallest) to 1 (best). Default 0.9. Ignored by lossless formats.
    public var quality: Double = 0.9
    /// For formats with both modes (WebP): encode losslessly. Default `false`.
    public var lossless: Bool = false
    /// Encode only the first frame of an animation.
    public var firstFrameOnly: Bool = false

    public init(quality: Double = 0.9, lossless: Bool = false, firstFrameOnly: Bool = false) {
        self.quality = min(max(quality, 0), 1)
        self.lossless = lossless
        self.firstFrameOnly = firstFrameOnly
    }
}
