import CJXL
import Foundation

/// Decodes JPEG XL (bare codestream or container; stills, animations, alpha) with libjxl.
///
/// Pixels come out as 8-bit RGBA. A lossy (XYB) image is rendered by libjxl straight to
/// sRGB; a lossless one in another colour space is converted from its ICC profile
/// (``ImageDecodeOptions/colorManagement``). The codestream's orientation is applied unless
/// ``ImageDecodeOptions/applyOrientation`` is off, and recorded either way. Animations
/// decode every frame composed onto the canvas (libjxl's coalescing) with the durations
/// and loop count of the animation header; one cut short keeps its complete frames and is
/// flagged ``DecodedImage/isIncremental``. Thumbnails decode at full size, then resample.
///
/// Stateless and `Sendable`: call it from any thread, several calls at once. Every call
/// blocks the calling thread (libjxl runs without its own threads), so run it on a
/// ``DecodeQueue``.
public struct JXLCoder: ImageCoder {
    /// Creates the coder; it has no settings.
    public init() {}

    /// Whether `data` starts with a JPEG XL codestream or container signature.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .jxl
    }

    /// Decodes a JPEG XL still or animation into RGBA frames.
    ///
    /// Runs on the caller's thread; blocking. The size from the header is checked against
    /// ``ImageDecodeOptions/maxPixelCount`` before any pixel is allocated, and again for
    /// every further animation frame (the frame count is not in the header).
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for corrupt or truncated data,
    ///   ``WebImageError/Code/imageTooLarge`` when the image exceeds the pixel limit.
    public func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
        guard !data.isEmpty else { throw .badImageData("The JPEG XL data is empty") }
        return try WebImageError.typed(as: .badImageData) { try data.withUnsafeBytes { raw throws(WebImageError) in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                throw .badImageData("The JPEG XL data is empty")
            }
            let decoding = try JXLDecoding(options: options)
            let result = try decoding.run(UnsafeBufferPointer(start: base, count: raw.count))
            let shaper = FrameShaper(stored: result.size, orientation: result.orientation, options: options)
            let frames = result.frames.map { frame in
                var pixels = shaper.shape(frame.pixels)
                ColorConverter.convertToSRGB(&pixels, from: result.colorSource, options: options)
                return ImageFrame(pixels: pixels, duration: frame.duration)
            }
            guard let image = DecodedImage(frames: frames, format: .jxl, loopCount: result.loopCount, scale: options.scale,
                                           isIncremental: result.isTruncated, orientation: result.orientation)
            else { throw .badImageData("The JPEG XL file has no frames") }
            return image
        } }
    }

    /// JPEG XL is decoded only.
    public func canEncode(to format: ImageFormat) -> Bool { false }

    /// Always throws: JPEG XL is decoded only.
    ///
    /// - Throws: ``WebImageError/Code/unsupportedFormat``.
    public func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
        throw .unsupportedFormat("JXLCoder does not encode")
    }
}
