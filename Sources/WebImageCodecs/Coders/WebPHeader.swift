import CWebP

/// The size and flags a WebP file declares, read before any pixel is decoded.
///
/// An extended file (`VP8X`) is read here directly: libwebp rejects a canvas over
/// 2³² pixels as a bitstream error, while WebImage must report such a header as
/// ``WebImageError/Code/imageTooLarge``. Simple files (`VP8 `, `VP8L`) are read by
/// `WebPGetFeatures`.
struct WebPHeader {
    /// Canvas (or image) width in pixels.
    var width: Int
    /// Canvas (or image) height in pixels.
    var height: Int
    /// The `VP8X` flag byte; 0 for simple files.
    var flags: UInt8

    /// The `VP8X` animation flag.
    var isAnimated: Bool { flags & 0x02 != 0 }
    /// The `VP8X` EXIF flag: an `EXIF` chunk follows the image data.
    var hasEXIF: Bool { flags & 0x08 != 0 }
    var size: PixelSize { PixelSize(width: width, height: height) }

    /// Reads the header from the first bytes of a file.
    ///
    /// - Returns: `nil` while too few bytes arrived to know the size.
    /// - Throws: ``WebImageError/Code/badImageData`` when the bytes are not a WebP header.
    static func parse(_ p: UnsafeRawBufferPointer) throws(WebImageError) -> WebPHeader? {
        guard p.count >= 16 else {
            // "RIFF" ???? "WEBP" must agree with what arrived so far.
            let signature = Array("RIFF\0\0\0\0WEBP".utf8)
            for i in 0..<min(p.count, 12) where i < 4 || i >= 8 {
                if p[i] != signature[i] { throw .badImageData("Not a WebP file (no RIFF/WEBP signature)") }
            }
            return nil
        }
        guard ImageFormat.detect(p) == .webp else {
            throw .badImageData("Not a WebP file (no RIFF/WEBP signature)")
        }
        if p[12] == 0x56, p[13] == 0x50, p[14] == 0x38, p[15] == 0x58 {  // "VP8X"
            guard p.count >= 30 else { return nil }
            func u24(_ o: Int) -> Int { Int(p[o]) | Int(p[o + 1]) << 8 | Int(p[o + 2]) << 16 }
            return WebPHeader(width: u24(24) + 1, height: u24(27) + 1, flags: p[20])
        }
        guard let base = p.baseAddress else { return nil }
        var features = WebPBitstreamFeatures()
        switch WebPGetFeatures(base.assumingMemoryBound(to: UInt8.self), p.count, &features) {
        case VP8_STATUS_OK:
            return WebPHeader(width: Int(features.width), height: Int(features.height), flags: 0)
        case VP8_STATUS_NOT_ENOUGH_DATA:
            return nil
        case let status:
            throw .badImageData("Invalid WebP header (libwebp status \(status.rawValue))")
        }
    }

    /// Whether `p` holds fewer bytes than its RIFF header declares.
    ///
    /// A one-shot libwebp decode refuses such data even when only trailing metadata is
    /// missing, while the incremental decoder finishes as soon as the pixels are in.
    static func isShorterThanDeclared(_ p: UnsafeRawBufferPointer) -> Bool {
        guard p.count >= 8 else { return true }
        let declared = Int(p[4]) | Int(p[5]) << 8 | Int(p[6]) << 16 | Int(p[7]) << 24
        return declared + 8 > p.count
    }

    /// The EXIF orientation of a complete file, `.up` when it has none.
    static func orientation(in p: UnsafeRawBufferPointer) -> Orientation {
        guard let base = p.baseAddress else { return .up }
        var data = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: p.count)
        guard let demux = WebPDemux(&data) else { return .up }
        defer { WebPDemuxDelete(demux) }
        return orientation(in: demux)
    }

    /// The EXIF orientation from a demuxer's `EXIF` chunk, `.up` when it has none.
    static func orientation(in demux: OpaquePointer) -> Orientation {
        var chunk = WebPChunkIterator()
        guard WebPDemuxGetChunk(demux, "EXIF", 1, &chunk) != 0 else { return .up }
        defer { WebPDemuxReleaseChunkIterator(&chunk) }
        let payload = UnsafeRawBufferPointer(start: chunk.chunk.bytes, count: chunk.chunk.size)
        // Some writers keep JPEG's "Exif\0\0" prefix in the chunk.
        return EXIFOrientation.parse(tiff: payload) ?? EXIFOrientation.parse(app1: payload) ?? .up
    }

    /// How far libwebp's scaler shrinks on load at most: to 7× the target, under twice the
    /// Lanczos kernel's gap, so the kernel takes the rest without a box shrink of its own.
    /// libwebp's scaler is an area average (and drops the chroma upsampling of a full
    /// decode); scaled straight to the target, as libvips' thumbnails are, a 24 MP photo
    /// scores 34 dB against a full-decode Lanczos reference, and 53 dB with 7× left to
    /// Lanczos, which costs no more than the scaled decode and less than a full one.
    static let loadShrinkHeadroom = 7.0

    /// The size libwebp decodes to for a `target` (stored orientation): the stored size, or
    /// an aspect-preserving shrink leaving ``loadShrinkHeadroom`` for the resampler.
    static func loadSize(stored: PixelSize, target: PixelSize) -> PixelSize {
        guard target != stored, target.width > 0, target.height > 0 else { return stored }
        let shrink = min(Double(stored.width) / Double(target.width), Double(stored.height) / Double(target.height))
        let factor = shrink / loadShrinkHeadroom
        guard factor > 1 else { return stored }
        return PixelSize(width: max(target.width, Int((Double(stored.width) / factor).rounded())),
                         height: max(target.height, Int((Double(stored.height) / factor).rounded())))
    }

    /// The size to produce, in stored (not yet oriented) pixels, so that after
    /// `orientation` is applied the image has the size `options` ask for.
    static func decodeSize(stored: PixelSize, orientation: Orientation, options: ImageDecodeOptions) -> PixelSize {
        let swaps = options.applyOrientation && orientation.swapsDimensions
        func swapped(_ s: PixelSize) -> PixelSize { PixelSize(width: s.height, height: s.width) }
        let display = swaps ? swapped(stored) : stored
        let target = options.targetSize(for: display)
        return swaps ? swapped(target) : target
    }
}
