/// The structure of an animation, as its file declares it.
public struct AnimationInfo: Sendable, Hashable {
    /// The source format.
    public var format: ImageFormat
    /// The canvas (logical screen) size in the file, before orientation and thumbnailing.
    public var canvasSize: PixelSize
    /// The size of every frame ``AnimationDecoder/frame(at:reusing:)`` returns: the canvas
    /// turned upright and scaled to the decode options' target size.
    public var frameSize: PixelSize
    /// Number of frames whose data is complete in the file.
    public var frameCount: Int
    /// How many times the animation plays: 0 means forever.
    public var loopCount: Int
    /// Display time of each frame in seconds (`frameCount` values, each 0 to
    /// ``ImageFrame/maxDuration``), with the same rules as the eager decoders.
    public var durations: [Double]
    /// `true` when the file was cut short: frames after the last complete one are missing.
    public var isTruncated: Bool
    /// The orientation the file declared; frames are already turned upright unless the
    /// options said not to.
    public var orientation: Orientation

    public init(format: ImageFormat, canvasSize: PixelSize, frameSize: PixelSize, loopCount: Int,
                durations: [Double], isTruncated: Bool = false, orientation: Orientation = .up) {
        self.format = format
        self.canvasSize = canvasSize
        self.frameSize = frameSize
        self.frameCount = durations.count
        self.loopCount = max(0, loopCount)
        self.durations = durations.map { ImageFrame(pixels: PixelBuffer(width: 0, height: 0), duration: $0).duration }
        self.isTruncated = isTruncated
        self.orientation = orientation
    }

    /// Bytes of one frame at ``frameSize``.
    public var frameBytes: Int { PixelBuffer.byteCount(width: frameSize.width, height: frameSize.height) ?? .max }

    /// Total duration of one loop, in seconds.
    public var duration: Double { durations.reduce(0, +) }
}
