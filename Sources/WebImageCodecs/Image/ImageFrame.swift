/// One frame of an image: its pixels and, in an animation, how long it shows.
public struct ImageFrame: Sendable, Hashable {
    /// The frame's pixels, already composed onto the full canvas for animations.
    public var pixels: PixelBuffer
    /// Display time in seconds; 0 for a still image.
    public var duration: Double

    public init(pixels: PixelBuffer, duration: Double = 0) {
        self.pixels = pixels
        self.duration = duration
    }
}
