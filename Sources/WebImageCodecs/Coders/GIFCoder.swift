import CGIF
import Foundation

/// Decodes and encodes GIF, still and animated, with giflib.
///
/// Decoding composes every frame onto the full logical screen (frames may be smaller,
/// offset, or partly outside it: they are clipped), honouring disposal (none, restore to
/// background, which clears to transparent, and restore to previous), the transparent
/// index, interlacing and local or global colour maps; an image with no colour map at all
/// is drawn with a grey ramp. The loop count comes from the NETSCAPE2.0 extension
/// (0 = forever); without one the animation plays once (`loopCount == 1`). Delays of
/// 0 or 1 centisecond become 0.1 s, as in browsers. A single-frame GIF has duration 0.
///
/// Truncated or corrupt data: the frames completed before the damage are returned;
/// when not even the first frame is complete, decoding throws
/// ``WebImageError/Code/badImageData``. Data that ends inside a block was cut short, so
/// its frames come flagged ``DecodedImage/isIncremental`` (a cache must not keep them as
/// the whole image); data ending between blocks reads as a file without its trailer. The pixel limit is checked against the canvas
/// times the number of frames the file declares before anything is allocated.
///
/// Encoding quantizes each frame to at most 256 colours (median cut; a transparent
/// index when any pixel's alpha is below 128), writes per-frame delays, and the
/// NETSCAPE2.0 loop count unless the image plays once. Stateless and thread-safe.
public struct GIFCoder: ProgressiveImageCoder {
    /// Creates a GIF coder. It holds no state, so one instance can serve every thread.
    public init() {}

    /// Whether `data` starts with `GIF87a` or `GIF89a`.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .gif
    }

    /// Decodes all frames (or the first, with ``ImageDecodeOptions/firstFrameOnly``),
    /// each scaled to ``ImageDecodeOptions/targetSize(for:)`` of the canvas. Runs on the
    /// caller's thread.
    public func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
        guard !data.isEmpty else { throw WebImageError.badImageData("The GIF data is empty") }
        let decoder = GIFDecoder(options: options, frameLimit: options.firstFrameOnly ? 1 : nil)
        let outcome = try decoder.decode(data)
        return try Self.image(from: outcome, options: options, isIncremental: outcome.isTruncated)
    }

    /// Whether `format` is ``ImageFormat/gif``.
    public func canEncode(to format: ImageFormat) -> Bool {
        format == .gif
    }

    /// Encodes `image` as GIF: one frame, or all of them as an animation with their
    /// durations and `image.loopCount`. ``ImageEncodeOptions/quality`` is not used.
    public func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
        guard format == .gif else { throw WebImageError.unsupportedFormat("GIFCoder cannot encode \(format.rawValue)") }
        // A lazy image holds its poster only: its frames come from the animation, one at a time.
        if let animation = image.animation, !options.firstFrameOnly {
            return try animation.encoded(as: .gif, options: options)
        }
        let frames = options.firstFrameOnly ? Array(image.frames.prefix(1)) : image.frames
        return try GIFEncoder.encode(frames: frames, loopCount: image.loopCount)
    }

    /// Whether the first bytes are a GIF signature (6 bytes are enough).
    public func canDecodeIncrementally(_ data: Data) -> Bool {
        canDecode(data)
    }

    /// A ``GIFIncrementalDecoder`` for one transfer.
    public func makeIncrementalDecoder(options: ImageDecodeOptions) -> any ProgressiveImageDecoder {
        GIFIncrementalDecoder(options: options)
    }

    static func image(from outcome: GIFDecoder.Outcome, options: ImageDecodeOptions,
                      isIncremental: Bool) throws(WebImageError) -> DecodedImage {
        guard !outcome.frames.isEmpty else {
            throw outcome.stopReason ?? .badImageData("The GIF has no image")
        }
        guard let image = DecodedImage(frames: outcome.frames, format: .gif, loopCount: outcome.loopCount,
                                       scale: options.scale, isIncremental: isIncremental) else {
            throw .badImageData("The GIF frames differ in size")
        }
        return image
    }
}
