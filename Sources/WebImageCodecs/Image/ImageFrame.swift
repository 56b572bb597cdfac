/// One frame of an image: its pixels and, in an animation, how long it shows.
public struct ImageFrame: Sendable, Hashable {
    /// The frame's pixels, already composed onto the full canvas for animations.
    public var pixels: PixelBuffer
    /// Display time in seconds; 0 for a still image. Always finite, 0 to
    /// ``maxDuration``: NaN and negative values become 0, larger ones the maximum, so
    /// every encoder can convert it to its integer units.
    public var duration: Double {
        didSet { duration = Self.clamped(duration) }
    }

    /// The longest a frame may show: one hour.
    public static let maxDuration: Double = 3600

    public init(pixels: PixelBuffer, duration: Double = 0) {
        self.pixels = pixels
        self.duration = Self.clamped(duration)
    }

    private static func clamped(_ duration: Double) -> Double {
        duration.isNaN ? 0 : min(max(duration, 0), maxDuration)
    }
}
