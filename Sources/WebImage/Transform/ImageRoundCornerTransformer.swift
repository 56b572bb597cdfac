/// Rounds the corners of every frame and optionally draws a border
/// (SDWebImage's `SDImageRoundCornerTransformer`).
///
/// Outside the rounded corners the image becomes transparent; the curve is anti-aliased.
/// The border lies inside the image's edge, following the rounded shape.
///
/// Key: `ImageRoundCornerTransformer(radius:R,corners:C,borderWidth:B,borderColor:rrggbbaa)`,
/// where `C` is `all`, `none`, or the corner names joined by `+` in the order
/// topLeft, topRight, bottomLeft, bottomRight; for example
/// `ImageRoundCornerTransformer(radius:12,corners:topLeft+topRight,borderWidth:0,borderColor:00000000)`.
public struct ImageRoundCornerTransformer: ImageTransformer {
    /// Which corners to round.
    public struct Corners: OptionSet, Sendable, Hashable {
        /// Bit 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right.
        public let rawValue: UInt8
        /// Creates a set from its bits; see ``rawValue``.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// The top-left corner.
        public static let topLeft = Corners(rawValue: 1 << 0)
        /// The top-right corner.
        public static let topRight = Corners(rawValue: 1 << 1)
        /// The bottom-left corner.
        public static let bottomLeft = Corners(rawValue: 1 << 2)
        /// The bottom-right corner.
        public static let bottomRight = Corners(rawValue: 1 << 3)
        /// All four corners.
        public static let all: Corners = [.topLeft, .topRight, .bottomLeft, .bottomRight]

        /// The form used in keys: `all`, `none` or names joined by `+`.
        var keyDescription: String {
            if self.isSuperset(of: .all) { return "all" }
            let names = [(Corners.topLeft, "topLeft"), (.topRight, "topRight"),
                         (.bottomLeft, "bottomLeft"), (.bottomRight, "bottomRight")]
                .filter { contains($0.0) }.map(\.1)
            return names.isEmpty ? "none" : names.joined(separator: "+")
        }
    }

    /// Corner radius in pixels; clamped to half the shorter side.
    public var radius: Double
    /// Which corners are rounded; the others stay square. Default: all.
    public var corners: Corners
    /// Border width in pixels, 0 for none (the default).
    public var borderWidth: Double
    /// Border colour, blended over the image by its alpha. Default: transparent.
    public var borderColor: RGBA

    /// Creates a round-corner transform; by default all corners and no border.
    public init(
        radius: Double, corners: Corners = .all,
        borderWidth: Double = 0, borderColor: RGBA = RGBA(r: 0, g: 0, b: 0, a: 0)
    ) {
        self.radius = radius
        self.corners = corners
        self.borderWidth = borderWidth
        self.borderColor = borderColor
    }

    public var transformerKey: String {
        TransformerKey.make("ImageRoundCornerTransformer", [
            "radius": TransformerKey.number(radius),
            "corners": corners.keyDescription,
            "borderWidth": TransformerKey.number(borderWidth),
            "borderColor": TransformerKey.color(borderColor),
        ])
    }

    /// Returns `nil` when the radius or border width is negative or not finite.
    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        guard radius.isFinite, radius >= 0, borderWidth.isFinite, borderWidth >= 0 else { return nil }
        return image.mapFrames {
            $0.roundedCorners(radius: radius, corners: corners, borderWidth: borderWidth, borderColor: borderColor)
        }
    }
}
