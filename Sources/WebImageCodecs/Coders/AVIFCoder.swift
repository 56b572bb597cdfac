import CAVIF
import Foundation

/// Decodes AVIF (stills, alpha, image sequences; 8, 10 and 12 bits) and encodes AVIF, with
/// libavif (AV1 through dav1d or libaom).
///
/// Every bit depth decodes to 8-bit RGBA, converted to sRGB from the file's ICC profile or
/// `nclx` code points (``ImageDecodeOptions/colorManagement``). The `irot`/`imir` transforms are applied as
/// the orientation (recorded in ``DecodedImage/orientation`` either way; an EXIF
/// orientation inside an AVIF is ignored, as HEIF specifies and browsers do). The clean
/// aperture (`clap`) crop is not applied. Thumbnails decode at full size, then resample:
/// AV1 has no reduced-size decode. Image sequences decode every frame with its duration
/// and loop forever (libavif 0.11 does not read an edit list's repetition); lazily through
/// ``makeAnimationDecoder(_:options:)``. Tracks without pictures (audio) are skipped. A grid
/// whose alpha items belong to its tiles rather than to the grid decodes with that alpha
/// (`AVIFAlphaGrid`; libavif 0.11 alone decodes it opaque).
///
/// Stateless and `Sendable`: call it from any thread, several calls at once. Every call
/// blocks the calling thread, so run it on a ``DecodeQueue``.
///
/// ```swift
/// let image = try AVIFCoder().decode(data, options: .init(thumbnailPixelSize: .init(width: 200, height: 200)))
/// let avif = try AVIFCoder().encode(image, as: .avif, options: .init(quality: 0.6, speed: 8))
/// ```
public struct AVIFCoder: ImageCoder {
    /// Creates the coder; it has no settings.
    public init() {}

    /// Whether `data` is an ISO BMFF file with an AVIF brand.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .avif
    }

    /// Decodes an AVIF still or image sequence into RGBA frames.
    ///
    /// Runs on the caller's thread; blocking. The declared size (times the frame count of
    /// a sequence) is checked against ``ImageDecodeOptions/maxPixelCount`` before any pixel
    /// is allocated.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for corrupt or truncated data,
    ///   ``WebImageError/Code/imageTooLarge`` when the header exceeds the pixel limit,
    ///   ``WebImageError/Code/unsupportedFormat`` for a feature libavif lacks.
    public func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
        let source = try AVIFSource(data: data, options: options)
        let count = options.firstFrameOnly ? 1 : source.frameCount
        try options.checkPixelLimit(width: source.size.width, height: source.size.height, frames: count)
        let shaper = FrameShaper(stored: source.size, orientation: source.orientation, options: options)
        var frames: [ImageFrame] = []
        frames.reserveCapacity(count)
        for index in 0..<count {
            var pixels = shaper.shape(try source.frame(at: index))
            ColorConverter.convertToSRGB(&pixels, from: source.colorSource, options: options)
            frames.append(ImageFrame(pixels: pixels, duration: count > 1 ? source.duration(of: index) : 0))
        }
        guard let image = DecodedImage(frames: frames, format: .avif, loopCount: 0, scale: options.scale,
                                       orientation: source.orientation)
        else { throw .badImageData("The AVIF file has no frames") }
        return image
    }

    /// Whether `format` is `.avif`.
    public func canEncode(to format: ImageFormat) -> Bool {
        format == .avif
    }
}
