import CJPEGShim
import Foundation

/// A JPEG thumbnail of a JPEG that never leaves YCbCr: libjpeg decodes the Y, Cb and Cr
/// planes at the DCT-scaled size (`raw_data_out`), each plane is resampled with Lanczos3
/// straight to its size in a 4:2:0 output, and libjpeg encodes the planes as they are
/// (`raw_data_in`). No colour conversion, chroma upsampling or downsampling runs, and no
/// RGBA image exists; the result has the RGBA path's size, scale-on-load rule
/// (`JPEGDecodePlan`), kernel and centring, with chroma resampled once instead of
/// upsampled, resampled and averaged.
///
/// **When it applies** (otherwise ``transcode(_:options:encode:reencode:)`` returns `nil` having
/// decoded nothing, and the caller takes ``JPEGCoder``'s RGBA path):
/// - the source is a 3-component YCbCr JPEG with chroma sampled once per MCU (4:2:0, 4:2:2,
///   4:4:0, 4:4:4); grayscale, RGB-coded, CMYK and YCCK files need RGB or other planes;
/// - the options shrink it (a thumbnail or scale-down size smaller than the stored one);
/// - nothing turns it: no EXIF orientation other than `.up`, or orientation not applied;
/// - no colour conversion: no ICC profile, an sRGB-like one (see
///   `ColorConverter/changesPixels(from:options:)`), or colour management off;
/// - no plane needs the resampler's box pre-shrink (a residual scale of 8 or more after the
///   DCT scaling). At 1/2, 1/4 and 1/8 libjpeg decodes 4:2:0 chroma with a larger IDCT to
///   luma's size, so chroma's residual is twice luma's: with the shrink-on-load rule a
///   proportional shrink of 32× or more (12 MP to 126 px or less), or a distorting one whose
///   other axis leaves luma 4× or more, takes the RGBA path.
///
/// What it saves (12 MP 4:2:0, `webimage serve`, CPU per request): ~8 ms of 55 at 1200 px
/// (a 1/1 decode: no fancy upsampling or colour conversion of 12 MP), ~1 ms at 673×500
/// (1/2), within noise at 500 and 300 px (1/4), where entropy decoding is nearly all of
/// libjpeg's time and the planar decode costs what the RGBA one does.
///
/// The output is a baseline (or progressive) 4:2:0 JPEG as ``JPEGCoder`` encodes one, with
/// no metadata. Callers decide which requests may skip RGB (no crop, effect or other
/// output format); the proxy's rule is in `ImageRenderer`. Blocks the calling thread.
public enum JPEGPlanarTranscoder {
    /// A transcoded thumbnail: the JPEG and its size.
    public struct Output: Sendable {
        public var data: Data
        public var size: PixelSize
        /// Whether WebImage's scaled baseline decoder decoded the source
        /// (``ImageDecodeOptions/usesScaledJPEGDecoder``), rather than libjpeg-turbo.
        public var usedScaledDecoder = false
    }

    /// The thumbnail of `data` that `options` ask for, encoded with `encode`'s quality,
    /// progressive and Huffman settings; `nil` when the planar path does not apply (see the
    /// type's description).
    ///
    /// `reencode` sees each encoded result and may ask for another encode of the same
    /// resampled planes (a lower quality for a byte budget); the source is decoded once
    /// however many encodes follow. It runs on the calling thread, between encodes.
    ///
    /// - Throws: ``WebImageError`` as ``JPEGCoder/decode(_:options:)`` does for data that
    ///   does not decode; `encodingFailed` when libjpeg cannot encode.
    public static func transcode(_ data: Data, options: ImageDecodeOptions, encode: ImageEncodeOptions,
                                 reencode: (Output) -> ImageEncodeOptions? = { _ in nil }) throws(WebImageError) -> Output? {
        guard JPEGCoder().canDecode(data) else { return nil }
        return try WebImageError.typed(as: .badImageData) { try data.withUnsafeBytes { bytes -> Output? in
            let jpeg = try JPEGDecompressor()
            jpeg.setInput(bytes, isComplete: true)
            guard let header = try jpeg.readHeader(), jpeg.hasPlanes else { return nil }
            let icc = jpeg.iccProfile()
            let plan = try JPEGDecodePlan(header: header, orientation: jpeg.exifOrientation(), options: options,
                                          iccProfile: icc)
            guard plan.storedTarget.width < plan.storedSize.width || plan.storedTarget.height < plan.storedSize.height,
                  plan.storedTarget.width <= plan.storedSize.width, plan.storedTarget.height <= plan.storedSize.height,
                  !plan.applyOrientation || plan.orientation == .up,
                  !ColorConverter.changesPixels(from: icc.map { .iccProfile($0) }, options: options) else { return nil }
            // As JPEGCoder does: a progressive file decoded at 1/4 or 1/8 without the scans
            // that scale can do without.
            if plan.scaleDenominator >= 4, header.has_multiple_scans != 0, header.arithmetic == 0,
               let input = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) {
                let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
                defer { copy.deallocate() }
                if let output = copy.baseAddress?.assumingMemoryBound(to: UInt8.self) {
                    let count = wi_jpeg_filter_scans(input, bytes.count, UInt32(plan.scaleDenominator), output)
                    if count > 0 {
                        let filtered = try JPEGDecompressor()
                        filtered.setInput(UnsafeRawBufferPointer(rebasing: copy[0..<count]), isComplete: true)
                        if try filtered.readHeader() != nil {
                            return try transcode(filtered, plan: plan, byteCount: bytes.count, encode: encode,
                                                 reencode: reencode, blockSmoothing: false, scaledDecoder: false)
                        }
                    }
                }
            }
            return try transcode(jpeg, plan: plan, byteCount: bytes.count, encode: encode, reencode: reencode,
                                 scaledDecoder: options.usesScaledJPEGDecoder)
        } }
    }

    /// Decodes `jpeg` (header read) into planes, resamples and encodes them (again while
    /// `reencode` asks); `nil` when a plane would need a box pre-shrink. With
    /// `scaledDecoder`, a baseline file of a megapixel or more at 1/8 is decoded by
    /// WebImage's scaled decoder (libjpeg-turbo's planes, byte for byte, in less time).
    private static func transcode(_ jpeg: JPEGDecompressor, plan: JPEGDecodePlan, byteCount: Int,
                                  encode: ImageEncodeOptions, reencode: (Output) -> ImageEncodeOptions?,
                                  blockSmoothing: Bool = true, scaledDecoder: Bool) throws -> Output? {
        let planes = try jpeg.configurePlanes(scaleDenominator: plan.scaleDenominator)
        let size = plan.storedTarget
        // Luma straight to the output size; chroma to a 4:2:0 output's (see LanczosKernel.chroma).
        var resamplers: [PlaneResampler] = []
        for (i, plane) in planes.enumerated() {
            let width = Int(plane.width), height = Int(plane.height)
            let horizontal = i == 0
                ? LanczosKernel.cached(source: width, extent: plane.extent_width, destination: size.width)
                : LanczosKernel.chroma(source: width, extent: plane.extent_width, side: size.width)
            let vertical = i == 0
                ? LanczosKernel.cached(source: height, extent: plane.extent_height, destination: size.height)
                : LanczosKernel.chroma(source: height, extent: plane.extent_height, side: size.height)
            guard let horizontal, let vertical,
                  let resampler = PlaneResampler(sourceWidth: width, sourceHeight: height,
                                                 horizontal: horizontal, vertical: vertical) else { return nil }
            resamplers.append(resampler)
        }
        if !blockSmoothing { jpeg.disableBlockSmoothing() }
        jpeg.allowScaledDecoder(scaledDecoder)
        _ = try jpeg.start()
        while try jpeg.readPlanes({ i, rows, stride, count in resamplers[i].consume(rows, count: count, stride: stride) }) {}
        if jpeg.isTruncated {
            throw WebImageError.badImageData("The JPEG data ends before the image does (\(byteCount) bytes)")
        }
        guard resamplers.allSatisfy(\.isComplete) else { throw WebImageError.badImageData("The JPEG decoder stopped early") }
        _ = try jpeg.finish()
        var options = encode
        while true {
            let output = Output(data: try encodePlanes(resamplers, size: size, options: options), size: size,
                                usedScaledDecoder: jpeg.usedScaledDecoder)
            guard let next = reencode(output) else { return output }
            options = next
        }
    }

    /// Encodes the resampled Y, Cb and Cr planes as a 4:2:0 JPEG.
    private static func encodePlanes(_ planes: [PlaneResampler], size: PixelSize,
                                     options: ImageEncodeOptions) throws(WebImageError) -> Data {
        let handle = try JPEGEncoderHandle()
        let (encoder, quality) = (handle.encoder, JPEGEncoderHandle.quality(options))
        let check = handle.check
        try check(wi_jenc_start_planes(encoder, UInt32(size.width), UInt32(size.height), quality,
                                       options.progressive ? 1 : 0, options.optimizeHuffmanTables ? 1 : 0))
        let status = planes[0].plane.withUnsafeBufferPointer { y in
            planes[1].plane.withUnsafeBufferPointer { cb in
                planes[2].plane.withUnsafeBufferPointer { cr in
                    let bases = [y.baseAddress, cb.baseAddress, cr.baseAddress]
                    let strides = [planes[0].width, planes[1].width, planes[2].width]
                    return wi_jenc_write_planes(encoder, bases, strides)
                }
            }
        }
        try check(status)
        return try handle.finish()
    }
}
