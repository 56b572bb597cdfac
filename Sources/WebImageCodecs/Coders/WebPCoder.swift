import CWebP
import Foundation

/// Decodes and encodes WebP (lossy, lossless, alpha, animated) with libwebp.
///
/// Stills decode straight into the result's RGBA storage. Thumbnails let libwebp's own
/// area-averaging scaler shrink on load to 7× the target, then resample with Lanczos3
/// (see `WebPHeader/loadShrinkHeadroom`). Animations are composed frame
/// by frame onto the full canvas by libwebp's `WebPAnimDecoder`; their loop count comes
/// from the `ANIM` chunk (0 = forever). Frame durations of 10 ms or less become 100 ms,
/// as browsers play them. An `EXIF` orientation is applied unless
/// ``ImageDecodeOptions/applyOrientation`` is off. A still image's `ICCP` profile converts
/// its colours to sRGB (see ``ColorManagement``).
///
/// Stateless and `Sendable`: call it from any thread, several calls at once.
///
/// ```swift
/// let image = try WebPCoder().decode(data, options: .init())
/// let lossless = try WebPCoder().encode(image, as: .webp, options: .init(lossless: true))
/// ```
public struct WebPCoder: ProgressiveImageCoder {
    /// Creates the coder; it has no settings.
    public init() {}

    // MARK: Decoding

    /// Whether `data` starts with the RIFF/WEBP signature.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .webp
    }

    /// Decodes a WebP still or animation into RGBA frames.
    ///
    /// Runs on the caller's thread; blocking. The size from the header (and, for
    /// animations, the frame count) is checked against ``ImageDecodeOptions/maxPixelCount``
    /// before any pixels are allocated.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for corrupt or truncated data,
    ///   ``WebImageError/Code/imageTooLarge`` when the header exceeds the pixel limit.
    public func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
        try WebImageError.typed(as: .badImageData) { try data.withUnsafeBytes { raw throws(WebImageError) -> DecodedImage in
            guard let header = try WebPHeader.parse(raw) else {
                throw .badImageData("The WebP data is truncated (\(raw.count) bytes)")
            }
            try options.checkPixelLimit(width: header.width, height: header.height)
            if header.isAnimated {
                return try decodeAnimation(raw, header: header, options: options)
            }
            return try decodeStill(raw, header: header, options: options)
        } }
    }

    /// Decodes a still image at the size `options` ask for, straight into the result.
    private func decodeStill(
        _ p: UnsafeRawBufferPointer, header: WebPHeader, options: ImageDecodeOptions
    ) throws(WebImageError) -> DecodedImage {
        let orientation = header.hasEXIF ? WebPHeader.orientation(in: p) : .up
        let target = WebPHeader.decodeSize(stored: header.size, orientation: orientation, options: options)
        let size = WebPHeader.loadSize(stored: header.size, target: target)
        guard let base = p.baseAddress else { throw .badImageData("The WebP data is empty") }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw .badImageData("libwebp rejected its decoder configuration")
        }
        Self.configure(&config, decodeSize: size, storedSize: header.size)
        var failure: WebImageError?
        var pixels = PixelBuffer(width: size.width, height: size.height) { out in
            PageFaults.prefault(out)
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = out.baseAddress
            config.output.u.RGBA.stride = Int32(size.width * 4)
            config.output.u.RGBA.size = out.count
            let status = WebPDecode(base.assumingMemoryBound(to: UInt8.self), p.count, &config)
            WebPFreeDecBuffer(&config.output)
            if status != VP8_STATUS_OK {
                failure = Self.error(for: status)
                // The storage must be fully initialized even though it is thrown away.
                out.initialize(repeating: 0)
            }
        }
        if let failure { throw failure }
        if size != target { pixels = pixels.resampled(width: target.width, height: target.height) }
        ColorConverter.convertToSRGB(&pixels, from: Self.colorSource(in: p, header: header, options: options),
                                     options: options)
        if options.applyOrientation { pixels = pixels.oriented(orientation) }
        return DecodedImage(pixels: pixels, format: .webp, scale: options.scale, orientation: orientation)
    }

    /// The `ICCP` profile of an extended file (`VP8X` flag 0x20), `nil` when there is none
    /// or `options` keep stored samples. Reads a file still arriving too: `ICCP` comes
    /// before the image data.
    static func colorSource(in p: UnsafeRawBufferPointer, header: WebPHeader, options: ImageDecodeOptions) -> ColorSource? {
        guard header.flags & 0x20 != 0, options.colorManagement == .convertToSRGB, let base = p.baseAddress else {
            return nil
        }
        var data = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: p.count)
        guard let demux = WebPDemuxPartial(&data, nil) else { return nil }
        defer { WebPDemuxDelete(demux) }
        return colorSource(in: demux, header: header, options: options)
    }

    /// The `ICCP` profile read through a demuxer already open on the file (an animation
    /// decoder's own), for the same answer without parsing the file again.
    static func colorSource(in demux: OpaquePointer, header: WebPHeader, options: ImageDecodeOptions) -> ColorSource? {
        guard header.flags & 0x20 != 0, options.colorManagement == .convertToSRGB else { return nil }
        var chunk = WebPChunkIterator()
        guard WebPDemuxGetChunk(demux, "ICCP", 1, &chunk) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&chunk) }
        guard let bytes = chunk.chunk.bytes, chunk.chunk.size > 0 else { return nil }
        return .iccProfile(Array(UnsafeBufferPointer(start: bytes, count: chunk.chunk.size)))
    }

    /// Sets RGBA output and, when `decodeSize` is smaller than the image, libwebp's scaler.
    static func configure(_ config: inout WebPDecoderConfig, decodeSize: PixelSize, storedSize: PixelSize) {
        config.output.colorspace = MODE_RGBA
        if decodeSize != storedSize {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(decodeSize.width)
            config.options.scaled_height = Int32(decodeSize.height)
        }
    }

    /// The error for a failed libwebp decode.
    static func error(for status: VP8StatusCode) -> WebImageError {
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA:
            .badImageData("The WebP data is truncated")
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            .unsupportedFormat("The WebP data uses a feature libwebp does not support")
        case VP8_STATUS_OUT_OF_MEMORY:
            .badImageData("libwebp ran out of memory decoding the image")
        default:
            .badImageData("The WebP data is corrupt (libwebp status \(status.rawValue))")
        }
    }

    // MARK: Encoding

    /// Whether `format` is `.webp`.
    public func canEncode(to format: ImageFormat) -> Bool {
        format == .webp
    }

    /// Encodes `image` as WebP: lossy at ``ImageEncodeOptions/quality`` (0…1 → 0…100), or
    /// lossless with ``ImageEncodeOptions/lossless``, keeping alpha. Several frames make an
    /// animated WebP with the image's durations and loop count, unless
    /// ``ImageEncodeOptions/firstFrameOnly`` is set.
    ///
    /// Runs on the caller's thread; blocking.
    ///
    /// - Throws: ``WebImageError/Code/unsupportedFormat`` for a format other than WebP,
    ///   ``WebImageError/Code/encodingFailed`` when libwebp fails (for example, an image
    ///   over WebP's 16383-pixel side limit).
    public func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
        guard format == .webp else {
            throw WebImageError.unsupportedFormat("WebPCoder cannot encode \(format.rawValue)")
        }
        // A lazy image holds its poster only: its frames come from the animation, one at a time.
        if let animation = image.animation, !options.firstFrameOnly {
            return try animation.encoded(as: .webp, options: options)
        }
        if image.frames.count > 1 && !options.firstFrameOnly {
            return try encodeAnimation(image, options: options)
        }
        return try encodeStill(image.pixels, options: options)
    }

    // MARK: Incremental decoding

    /// Whether `data` starts like a WebP file (12 bytes are enough).
    public func canDecodeIncrementally(_ data: Data) -> Bool {
        canDecode(data)
    }

    /// A new ``WebPIncrementalDecoder`` for one transfer.
    public func makeIncrementalDecoder(options: ImageDecodeOptions) -> any ProgressiveImageDecoder {
        WebPIncrementalDecoder(options: options)
    }
}
