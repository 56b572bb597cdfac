/// Where a crop, an extended canvas or a watermark is anchored (imgproxy's gravity).
public struct Gravity: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case center = "ce", north = "no", south = "so", east = "ea", west = "we"
        case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
        /// Smart: the most salient region (crops only).
        case smart = "sm"
        /// Focus point: `x`/`y` are fractions of the image that become the window's centre.
        case focusPoint = "fp"
        /// Replicate: tile the watermark (watermarks only).
        case replicate = "re"

        /// The anchor kinds every gravity option accepts.
        static let anchors: [Kind] = [.center, .north, .south, .east, .west, .northEast, .northWest, .southEast, .southWest]
    }

    public var kind = Kind.center
    /// Horizontal offset: pixels (times dpr) when |x| ≥ 1, else a fraction of the width;
    /// for a focus point, the fraction of the width.
    public var x = 0.0
    public var y = 0.0

    public init(kind: Kind = .center, x: Double = 0, y: Double = 0) {
        self.kind = kind
        self.x = x
        self.y = y
    }
}
