/// Grows the canvas of every frame by insets of a colour: padding, and the "extend" of
/// an image proxy (imgproxy's `extend`, `extend_aspect_ratio` and `padding` all become this,
/// with insets the proxy computes from gravity and dpr).
///
/// Key: `ImageExtendingTransformer(insets:T,R,B,L,color:rrggbbaa)`.
public struct ImageExtendingTransformer: ImageTransformer {
    public var top: Int
    public var right: Int
    public var bottom: Int
    public var left: Int
    /// The new area's colour; transparent by default.
    public var color: RGBA

    /// Creates an extension by the given insets (negative ones count as 0).
    public init(top: Int, right: Int, bottom: Int, left: Int, color: RGBA = RGBA(r: 0, g: 0, b: 0, a: 0)) {
        self.top = max(0, top)
        self.right = max(0, right)
        self.bottom = max(0, bottom)
        self.left = max(0, left)
        self.color = color
    }

    public var transformerKey: String {
        TransformerKey.make("ImageExtendingTransformer", [
            "insets": "\(top).\(right).\(bottom).\(left)", "color": TransformerKey.color(color),
        ])
    }

    /// Returns `nil` when the canvas exceeds ``ImageTransformers/maxOutputPixelCount``.
    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        let (w, o1) = image.width.addingReportingOverflow(left + right)
        let (h, o2) = image.height.addingReportingOverflow(top + bottom)
        guard !o1, !o2, ImageTransformers.isAllowedOutput(width: w, height: h) else { return nil }
        return image.mapFrames { $0.extended(top: top, right: right, bottom: bottom, left: left, color: color) }
    }
}
