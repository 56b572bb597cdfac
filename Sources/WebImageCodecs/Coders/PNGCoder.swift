import CPNGShim
import Foundation

/// Decodes PNG and APNG, and encodes PNG, with the system libpng.
///
/// Every valid PNG decodes to 8-bit RGBA (palettes, `tRNS`, gray, 16-bit and Adam7
/// interlacing included); corrupt data, CRC errors included, throws
/// ``WebImageError/Code/badImageData`` (except a deflate stream whose malformed Huffman codes
/// are never reached and whose Adler-32 is right: libdeflate, which inflates the common
/// 8-bit PNGs, decodes it). libpng here knows nothing of APNG, so
/// animations are read chunk by chunk and each frame goes through libpng on its own
/// (see `APNGReader`). EXIF orientation comes from an `eXIf` chunk. Colours tagged by
/// `cICP`, `iCCP`, `gAMA`/`cHRM` are converted to sRGB (see ``ColorManagement``).
///
/// A stateless value: safe to call from many threads at once. Decoding blocks, so
/// run it off the caller's thread (``DecodeQueue``).
public struct PNGCoder: ProgressiveImageCoder {
    /// A PNG coder; it holds no state.
    public init() {}

    // MARK: Decoding

    /// PNG and APNG, by signature.
    public func canDecode(_ data: Data) -> Bool {
        let format = ImageFormat.detect(data)
        return format == .png || format == .apng
    }

    /// Decodes every frame (or the first, with ``ImageDecodeOptions/firstFrameOnly``),
    /// checking the pixel limit from the header before allocating.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for corrupt or truncated data,
    ///   ``WebImageError/Code/imageTooLarge`` over ``ImageDecodeOptions/maxPixelCount``.
    public func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
        try WebImageError.typed(as: .badImageData) { try data.withUnsafeBytes { p in
            let (chunks, complete) = PNGChunk.scan(p)
            let orientation = Self.orientation(in: p, chunks: chunks)
            if let animation = try APNGReader(p, chunks: chunks) {
                // libpng rejects a still image without IEND; an animation is held to the same rule.
                guard complete else { throw WebImageError.badImageData("APNG: the data ends before IEND") }
                return try animation.decode(p, options: options, orientation: orientation)
            }
            // libpng rejects a still image without IEND too, but only after allocating each
            // chunk at its declared length: a chunk running past the data must not get that far.
            guard complete else { throw WebImageError.badImageData("PNG: the data ends before IEND") }
            var resampled = false
            let pixels = try PNGStillDecoder.decode(p, checkSize: { width, height in
                try options.checkPixelLimit(width: width, height: height)
            }, resampledSize: { size in
                let target = Self.storedTarget(for: size, orientation: orientation, options: options)
                resampled = target != size
                return resampled ? target : nil
            })
            return DecodedImage(
                pixels: Self.finish(pixels, orientation: orientation, options: options,
                                    color: Self.colorSource(in: p, chunks: chunks, options: options),
                                    isResampled: resampled),
                format: .png, scale: options.scale, orientation: orientation)
        } }
    }

    // MARK: Encoding

    /// PNG only; an animation is written as its first frame.
    public func canEncode(to format: ImageFormat) -> Bool {
        format == .png
    }

    /// Writes the first frame as an 8-bit PNG: RGBA, or RGB when every pixel is opaque.
    /// Lossless; `options.quality` is ignored.
    public func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
        guard format == .png else { throw WebImageError.unsupportedFormat("PNGCoder cannot encode \(format.rawValue)") }
        let pixels = image.pixels
        guard pixels.width > 0, pixels.height > 0,
              let width = UInt32(exactly: pixels.width), let height = UInt32(exactly: pixels.height) else {
            throw WebImageError(.encodingFailed, "PNG: cannot encode an empty image")
        }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: Int(CPNG_MESSAGE_SIZE))
        let status = pixels.bytes.withUnsafeBufferPointer { rgba in
            cpng_encode(rgba.baseAddress, width, height, pixels.bytesPerRow, pixels.hasAlpha ? 1 : 0,
                        &out, &size, &message, message.count)
        }
        guard status == CPNG_OK, let out else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw WebImageError(.encodingFailed, "PNG: " + text)
        }
        defer { cpng_free(out) }
        return Data(bytes: out, count: size)
    }

    // MARK: Progressive

    /// Whether `data` starts like a PNG (8 bytes suffice).
    public func canDecodeIncrementally(_ data: Data) -> Bool {
        data.count >= 8 && data.prefix(8).elementsEqual(PNGChunk.signature)
    }

    /// A ``PNGIncrementalDecoder`` with these options.
    public func makeIncrementalDecoder(options: ImageDecodeOptions) -> any ProgressiveImageDecoder {
        PNGIncrementalDecoder(options: options)
    }

    // MARK: Shared steps

    /// The orientation an `eXIf` chunk declares, or `.up`.
    static func orientation(in p: UnsafeRawBufferPointer, chunks: [PNGChunk]) -> Orientation {
        guard let exif = chunks.first(where: { $0.type == PNGChunk.exif }) else { return .up }
        var payload = UnsafeRawBufferPointer(rebasing: p[exif.data])
        // Some writers keep the JPEG APP1 "Exif\0\0" prefix in the chunk.
        if payload.count >= 6, payload.prefix(6).elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {
            payload = UnsafeRawBufferPointer(rebasing: payload[6...])
        }
        return EXIFOrientation.parse(tiff: payload) ?? .up
    }

    /// The colour information of the file's chunks (see `PNGColorChunks`), `nil` when
    /// `options` keep stored samples.
    static func colorSource(in p: UnsafeRawBufferPointer, chunks: [PNGChunk], options: ImageDecodeOptions) -> ColorSource? {
        options.colorManagement == .convertToSRGB ? PNGColorChunks.source(in: p, chunks: chunks) : nil
    }

    /// Scales `pixels` down to the options' target size (unless `isResampled`: the decoder
    /// already did), converts them from `color` to sRGB, and turns them upright.
    static func finish(_ pixels: PixelBuffer, orientation: Orientation, options: ImageDecodeOptions,
                       color: ColorSource? = nil, isResampled: Bool = false) -> PixelBuffer {
        let size = PixelSize(width: pixels.width, height: pixels.height)
        let target = isResampled ? size : storedTarget(for: size, orientation: orientation, options: options)
        // Resample before turning: the smaller image is cheaper to turn.
        var result = target == size ? pixels : pixels.resampled(width: target.width, height: target.height)
        ColorConverter.convertToSRGB(&result, from: color, options: options)
        let turn = options.applyOrientation && orientation != .up
        return turn ? result.oriented(orientation) : result
    }

    /// The options' target size for an image stored at `stored`, in stored orientation:
    /// thumbnail sizes are meant for the upright picture.
    static func storedTarget(for stored: PixelSize, orientation: Orientation, options: ImageDecodeOptions) -> PixelSize {
        let swaps = options.applyOrientation && orientation != .up && orientation.swapsDimensions
        let display = swaps ? PixelSize(width: stored.height, height: stored.width) : stored
        let target = options.targetSize(for: display)
        return swaps ? PixelSize(width: target.height, height: target.width) : target
    }
}
