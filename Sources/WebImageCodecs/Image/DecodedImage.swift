/// A decoded image: one or more frames of RGBA pixels plus what the source said about them.
///
/// A value type; frames share pixel storage between copies. The memory cache weighs
/// entries by ``cost``.
///
/// An animation loaded lazily (``init(animation:)``, or the manager's
/// `lazyAnimatedImage` option) holds only its poster frame in ``frames``; the other frames
/// come from ``animation`` on demand.
public struct DecodedImage: Sendable, Hashable {
    /// Width in pixels (of the canvas, for animations), after orientation was applied.
    public internal(set) var width: Int
    /// Height in pixels, after orientation was applied.
    public internal(set) var height: Int
    /// Points-to-pixels scale: 2 or 3 for `@2x`/`@3x` keys, otherwise 1.
    public var scale: Double
    /// The format the image was decoded from.
    public var format: ImageFormat
    /// The frames; one for a still image, and only the poster (the first frame) for a
    /// lazy animation (see ``animation``). Never empty, all of one size (``width`` ×
    /// ``height``): replace them with ``withFrames(_:)``, which checks that.
    public internal(set) var frames: [ImageFrame]
    /// The animation whose frames decode on demand, for an image loaded lazily; `nil` for
    /// a still image and for an animation decoded whole. When set, ``frames`` holds the
    /// poster only, and the image is animated (``isAnimated``, ``frameCount``).
    public internal(set) var animation: AnimatedImage?
    /// How many times an animation plays: 0 means forever.
    public var loopCount: Int
    /// `true` for a partial image decoded from incomplete data.
    public var isIncremental: Bool
    /// The orientation the source declared. The pixels are already turned upright
    /// unless decoding was asked not to (``ImageDecodeOptions/applyOrientation``).
    public var orientation: Orientation

    /// Creates an image from frames; width and height are the first frame's.
    ///
    /// Returns `nil` when `frames` is empty or the frames differ in size.
    public init?(
        frames: [ImageFrame],
        format: ImageFormat,
        loopCount: Int = 0,
        scale: Double = 1,
        isIncremental: Bool = false,
        orientation: Orientation = .up
    ) {
        guard let first = frames.first,
              frames.allSatisfy({ $0.pixels.width == first.pixels.width && $0.pixels.height == first.pixels.height })
        else { return nil }
        self.width = first.pixels.width
        self.height = first.pixels.height
        self.frames = frames
        self.format = format
        self.loopCount = loopCount
        self.scale = scale
        self.isIncremental = isIncremental
        self.orientation = orientation
    }

    /// A still image from one pixel buffer.
    public init(pixels: PixelBuffer, format: ImageFormat, scale: Double = 1,
                isIncremental: Bool = false, orientation: Orientation = .up) {
        self.width = pixels.width
        self.height = pixels.height
        self.frames = [ImageFrame(pixels: pixels)]
        self.format = format
        self.loopCount = 0
        self.scale = scale
        self.isIncremental = isIncremental
        self.orientation = orientation
    }

    /// This image with other frames (for example transformed ones), keeping the format,
    /// loop count, scale and orientation; the size becomes the frames'. `nil` when
    /// `frames` is empty or the frames differ in size. The result holds exactly `frames`:
    /// a lazy image's ``animation`` is not carried over.
    public func withFrames(_ frames: [ImageFrame]) -> DecodedImage? {
        guard let first = frames.first,
              frames.allSatisfy({ $0.pixels.width == first.pixels.width && $0.pixels.height == first.pixels.height })
        else { return nil }
        var result = self
        result.frames = frames
        result.animation = nil
        result.width = first.pixels.width
        result.height = first.pixels.height
        return result
    }

    /// A still image of the first frame (the poster frame of an animation); the image
    /// itself when it has one frame.
    public var firstFrame: DecodedImage {
        guard isAnimated else { return self }
        var result = self
        result.frames = [ImageFrame(pixels: pixels)]
        result.animation = nil
        return result
    }

    /// The first frame's pixels (the still image, or the poster frame of an animation).
    public var pixels: PixelBuffer { frames[0].pixels }

    /// Whether there is more than one frame (held, or on demand from ``animation``).
    public var isAnimated: Bool { frames.count > 1 || animation != nil }

    /// The number of frames: of ``animation`` for a lazy image, else of ``frames``.
    public var frameCount: Int { animation?.info.frameCount ?? frames.count }

    /// What the memory cache charges for this image: bytes of pixel memory held by all
    /// frames, plus ``AnimatedImage/cacheCost`` for a lazy animation (its data and the
    /// most it keeps between frame requests).
    public var cost: Int {
        let pixels = frames.reduce(0) { $0 + $1.pixels.bytes.count }
        guard let animation else { return pixels }
        let (sum, overflow) = pixels.addingReportingOverflow(animation.cacheCost)
        return overflow ? .max : sum
    }

    /// Whether any frame held in ``frames`` has a pixel that is not fully opaque.
    public var hasAlpha: Bool { frames.contains { $0.pixels.hasAlpha } }

    /// Total duration of one loop of the animation, in seconds.
    public var duration: Double { animation?.info.duration ?? frames.reduce(0) { $0 + $1.duration } }
}
