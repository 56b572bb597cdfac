/// How to encode.
///
/// Each setting applies to the formats its documentation names and is ignored by the
/// others. Out-of-range values are clamped when set, in the initializer and by assignment
/// alike.
public struct ImageEncodeOptions: Sendable, Hashable {
    /// Lossy quality from 0 (smallest) to 1 (best). Default 0.9. Ignored by lossless formats.
    ///
    /// Clamped to 0…1 when set, in the initializer and by assignment alike: below 0
    /// (`-.infinity` included) becomes 0, above 1 (`.infinity` included) becomes 1, and
    /// NaN becomes the default 0.9, so encoders can turn it into an integer without trapping.
    public var quality: Double = 0.9 { didSet { quality = Self.clampedQuality(quality) } }
    /// For formats with both modes (WebP, AVIF): encode losslessly. Default `false`.
    public var lossless: Bool = false
    /// Encode only the first frame of an animation.
    public var firstFrameOnly: Bool = false
    /// JPEG: write a progressive file (a coarse picture first, refined by later scans)
    /// instead of a baseline one. Default `false`: baseline decodes faster and streams
    /// top to bottom; progressive is usually a few percent smaller.
    public var progressive: Bool = false
    /// JPEG: compute Huffman tables for this image (one extra pass over the coefficients)
    /// instead of using the standard tables. Default `true`: smaller files, same pixels.
    /// A progressive file is always optimized.
    public var optimizeHuffmanTables: Bool = true
    /// AVIF: encoder speed from 0 (slowest, smallest file) to 10 (fastest). Default 8,
    /// fast enough for on-demand encoding in `webimage serve`. Clamped to 0…10.
    public var speed: Int = 8 { didSet { speed = Self.clampedSpeed(speed) } }

    public init(quality: Double = 0.9, lossless: Bool = false, firstFrameOnly: Bool = false,
                progressive: Bool = false, optimizeHuffmanTables: Bool = true, speed: Int = 8) {
        self.quality = Self.clampedQuality(quality)
        self.lossless = lossless
        self.firstFrameOnly = firstFrameOnly
        self.progressive = progressive
        self.optimizeHuffmanTables = optimizeHuffmanTables
        self.speed = Self.clampedSpeed(speed)
    }

    /// `quality` as a valid ``quality``: NaN gives the default 0.9, others are clamped to 0…1.
    static func clampedQuality(_ quality: Double) -> Double {
        quality.isNaN ? 0.9 : min(max(quality, 0), 1)
    }

    /// `speed` as a valid ``speed``: clamped to 0…10.
    static func clampedSpeed(_ speed: Int) -> Int {
        min(max(speed, 0), 10)
    }
}
