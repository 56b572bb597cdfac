/// Cuts a border of background colour off every frame (an image proxy's `trim`): the
/// window is ``WebImageCodecs/PixelBuffer/foregroundBounds(threshold:background:)`` of the first frame.
/// With `equalHorizontal` (`equalVertical`) the same amount, the smaller of the two
/// sides', is cut on the left and right (top and bottom). An image that is all
/// background is left unchanged.
///
/// Key: `ImageTrimmingTransformer(threshold:T,color:rrggbbaa|auto,equal:H.V)`.
public struct ImageTrimmingTransformer: ImageTransformer {
    public var threshold: Double
    /// The background colour; `nil` takes the top-left pixel's.
    public var color: RGBA?
    public var equalHorizontal: Bool
    public var equalVertical: Bool

    public init(threshold: Double, color: RGBA? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) {
        self.threshold = threshold
        self.color = color
        self.equalHorizontal = equalHorizontal
        self.equalVertical = equalVertical
    }

    public var transformerKey: String {
        TransformerKey.make("ImageTrimmingTransformer", [
            "threshold": TransformerKey.number(threshold), "color": color.map(TransformerKey.color) ?? "auto",
            "equal": "\(equalHorizontal).\(equalVertical)",
        ])
    }

    /// The window kept of an image of `width`×`height` whose foreground is `bounds`.
    public func window(for bounds: PixelRect, width: Int, height: Int) -> PixelRect {
        var r = bounds
        if equalHorizontal {
            let right = width - r.x - r.width
            let d = right - r.x
            if d > 0 { r.width += d } else if d < 0 { r.x = right; r.width -= d }
        }
        if equalVertical {
            let bottom = height - r.y - r.height
            let d = bottom - r.y
            if d > 0 { r.height += d } else if d < 0 { r.y = bottom; r.height -= d }
        }
        return r
    }

    /// Returns `nil` for a negative or non-finite threshold.
    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        guard threshold.isFinite, threshold >= 0 else { return nil }
        guard let bounds = image.pixels.foregroundBounds(threshold: threshold, background: color) else { return image }
        let rect = window(for: bounds, width: image.width, height: image.height)
        return image.mapFrames { $0.cropped(to: rect) }
    }
}
