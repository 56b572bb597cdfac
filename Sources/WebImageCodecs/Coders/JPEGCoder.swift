import CJPEGShim
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Decodes and encodes JPEG with libjpeg-turbo.
///
/// Decodes baseline, progressive, arithmetic-coded, grayscale, RGB and CMYK/YCCK
/// (Adobe inverted CMYK included) files straight into RGBA, and applies the EXIF
/// orientation (recorded in ``DecodedImage/orientation`` either way). Thumbnails and
/// scale-down decode with libjpeg's DCT scaling (1/2, 1/4, 1/8) as far as libvips does
/// (leaving at least 2× for the kernel, see `JPEGDecodePlan`), streaming the rows into a
/// Lanczos3 resample to the exact size. At 1/8 a baseline file of a megapixel or more is
/// decoded by WebImage's scaled decoder instead of libjpeg-turbo, with the same pixels
/// (``ImageDecodeOptions/usesScaledJPEGDecoder`` turns it off). 12-bit, lossless, JPEG-LS and DNL-sized files are beyond libjpeg-turbo 2.1
/// and fail with ``WebImageError/Code/unsupportedFormat``. An embedded ICC profile (APP2,
/// CMYK ones included) converts the colours to sRGB (see ``ColorManagement``); a rotated
/// full-size decode writes its rows straight to their upright place.
///
/// A one-shot decode of data that ends before the image does fails with
/// ``WebImageError/Code/badImageData``, as Pillow does, rather than returning a picture
/// with a grey bottom: a cache must not keep a cut-off download as if it were whole. A
/// baseline file missing only its final EOI marker still decodes; a multi-scan
/// (progressive) one counts as cut off. Partial images come from
/// ``makeIncrementalDecoder(options:)``.
///
/// Stateless and thread-safe; every call blocks the calling thread, so run it on a
/// ``DecodeQueue``.
public struct JPEGCoder: ProgressiveImageCoder {
    /// Creates the coder; it holds no state, so one instance can serve every thread.
    public init() {}

    /// Whether `data` starts with the JPEG SOI marker (`FF D8`), the test
    /// `ImageFormat.detect` uses. A file whose next marker is damaged is still ours:
    /// libjpeg skips to the next marker as it does for any corrupt stream, and what it
    /// cannot read is ``WebImageError/Code/badImageData``, not a missing decoder.
    public func canDecode(_ data: Data) -> Bool {
        data.count >= 2 && data.prefix(2).elementsEqual([0xFF, 0xD8])
    }

    /// Decodes `data` in one go; see the type's description.
    ///
    /// - Throws: ``WebImageError`` with `badImageData` (corrupt, truncated, empty),
    ///   `imageTooLarge` (checked from the header) or `unsupportedFormat`.
    public func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
        try decodeReporting(data, options: options).image
    }

    /// ``decode(_:options:)``, also saying whether WebImage's scaled baseline decoder
    /// decoded the file (`wi_jpeg_scaled.c`; else libjpeg-turbo did).
    func decodeReporting(_ data: Data, options: ImageDecodeOptions) throws(WebImageError)
        -> (image: DecodedImage, usedScaledDecoder: Bool) {
        guard !data.isEmpty else { throw WebImageError.badImageData("The JPEG data is empty") }
        return try WebImageError.typed(as: .badImageData) { try data.withUnsafeBytes { bytes in
            let jpeg = try JPEGDecompressor()
            jpeg.setInput(bytes, isComplete: true)
            guard let header = try jpeg.readHeader() else {
                throw WebImageError.badImageData("The JPEG header is incomplete")
            }
            let plan = try JPEGDecodePlan(header: header, orientation: jpeg.exifOrientation(), options: options,
                                          iccProfile: jpeg.iccProfile())
            if plan.scaleDenominator >= 4, header.has_multiple_scans != 0, header.arithmetic == 0,
               let image = try decodeFilteredScans(of: bytes, plan: plan) {
                return (image, false)
            }
            // At 1/8, a baseline file of a megapixel or more goes to the scaled decoder
            // (wi_jdec_start decides, from the header), which gives libjpeg-turbo's pixels.
            jpeg.allowScaledDecoder(options.usesScaledJPEGDecoder)
            let image = try decodePixels(jpeg, plan: plan, byteCount: bytes.count)
            return (image, jpeg.usedScaledDecoder)
        } }
    }

    /// A 1/8- or 1/4-scaled decode of a progressive file without the scans that scale can
    /// do without (see `wi_jpeg_filter_scans`: at 1/8 the same pixels, at 1/4 nearly), for
    /// less entropy decoding, which dominates a progressive thumbnail. `nil` when the file
    /// has no such scan or does not parse cleanly to its end, so the caller decodes the
    /// original and libjpeg judges it.
    private func decodeFilteredScans(of bytes: UnsafeRawBufferPointer, plan: JPEGDecodePlan) throws -> DecodedImage? {
        guard let input = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        defer { copy.deallocate() }
        guard let output = copy.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let count = wi_jpeg_filter_scans(input, bytes.count, UInt32(plan.scaleDenominator), output)
        guard count > 0 else { return nil }
        let jpeg = try JPEGDecompressor()
        jpeg.setInput(UnsafeRawBufferPointer(rebasing: copy[0..<count]), isComplete: true)
        guard try jpeg.readHeader() != nil else { return nil }
        return try decodePixels(jpeg, plan: plan, byteCount: bytes.count, blockSmoothing: false)
    }

    /// Runs `jpeg` (header read, input complete) to the end as `plan` says.
    private func decodePixels(_ jpeg: JPEGDecompressor, plan: JPEGDecodePlan, byteCount: Int,
                              blockSmoothing: Bool = true) throws -> DecodedImage {
        let size = try jpeg.configure(scaleDenominator: plan.scaleDenominator, buffered: false)
        if !blockSmoothing { jpeg.disableBlockSmoothing() }
        _ = try jpeg.start()
        if plan.turnsWhileDecoding(outputSize: size) {
            return try decodeUpright(jpeg, plan: plan, size: size, byteCount: byteCount)
        }
        if plan.resamples(outputSize: size) {
            return try decodeResampled(jpeg, plan: plan, size: size, byteCount: byteCount)
        }
        var pixels = try PixelBuffer(width: size.width, height: size.height) { buffer in
            guard let base = buffer.baseAddress else { throw WebImageError.badImageData("The JPEG has no pixels") }
            Self.prepareOutput(buffer)
            // With complete input libjpeg never waits: it stops early only when the
            // data turned out truncated, and then every row must be written or thrown.
            let rows = try jpeg.readRows(into: base, stride: size.width * 4)
            if jpeg.isTruncated {
                throw WebImageError.badImageData("The JPEG data ends before the image does (\(byteCount) bytes)")
            }
            guard rows == size.height else { throw WebImageError.badImageData("The JPEG decoder stopped early") }
        }
        _ = try jpeg.finish()
        plan.convertCMYK(&pixels, rows: 0..<pixels.height)
        return plan.finish(pixels, isIncremental: false)
    }

    /// Decodes a strip of rows at a time and writes each straight to its place in the
    /// upright image: the stored-orientation image never exists in full, so turning costs
    /// one pass over cache-resident strips instead of a second full-size buffer.
    private func decodeUpright(_ jpeg: JPEGDecompressor, plan: JPEGDecodePlan, size: PixelSize,
                               byteCount: Int) throws -> DecodedImage {
        let writer = OrientationWriter(orientation: plan.orientation, width: size.width, height: size.height)
        var strip = PixelBuffer(width: size.width, height: OrientationWriter.stripHeight)
        let pixels = try PixelBuffer(width: writer.outputWidth, height: writer.outputHeight) { out in
            guard let destination = UnsafeMutableRawPointer(out.baseAddress)?.assumingMemoryBound(to: UInt32.self) else {
                throw WebImageError.badImageData("The JPEG has no pixels")
            }
            Self.prepareOutput(out)
            var y = 0
            while y < size.height {
                let rows = try Self.readStrip(jpeg, into: &strip, plan: plan, remaining: size.height - y, byteCount: byteCount)
                strip.bytes.withUnsafeBytes { s in
                    if let source = s.baseAddress?.assumingMemoryBound(to: UInt32.self) {
                        writer.write(source, rows: y..<(y + rows), into: destination)
                    }
                }
                y += rows
            }
        }
        _ = try jpeg.finish()
        return plan.finish(pixels, isIncremental: false, isUpright: true)
    }

    /// Reads the next strip (up to `strip`'s height, at most `remaining` rows) into `strip`
    /// and converts CMYK; the rows read. A file that ends early is `badImageData`.
    private static func readStrip(_ jpeg: JPEGDecompressor, into strip: inout PixelBuffer, plan: JPEGDecodePlan,
                                  remaining: Int, byteCount: Int) throws -> Int {
        let wanted = min(OrientationWriter.stripHeight, remaining)
        let stride = strip.width * 4
        let rows = try strip.withUnsafeMutableBytes { s throws(WebImageError) -> Int in
            guard let base = s.baseAddress else { return 0 }
            return try jpeg.readStrip(into: base, stride: stride, maxRows: wanted)
        }
        if jpeg.isTruncated {
            throw WebImageError.badImageData("The JPEG data ends before the image does (\(byteCount) bytes)")
        }
        guard rows == wanted else { throw WebImageError.badImageData("The JPEG decoder stopped early") }
        plan.convertCMYK(&strip, rows: 0..<rows)
        return rows
    }

    /// Decodes a strip of rows at a time and feeds each to the Lanczos resampler while it
    /// is still in cache: the scaled image never exists in full, only the thumbnail does.
    private func decodeResampled(_ jpeg: JPEGDecompressor, plan: JPEGDecodePlan, size: PixelSize,
                                 byteCount: Int) throws -> DecodedImage {
        var resampler = plan.makeResampler(outputSize: size)
        var strip = PixelBuffer(width: size.width, height: OrientationWriter.stripHeight)
        var y = 0
        while y < size.height {
            let rows = try Self.readStrip(jpeg, into: &strip, plan: plan, remaining: size.height - y, byteCount: byteCount)
            strip.bytes.withUnsafeBufferPointer { s in
                if let base = s.baseAddress { resampler.consume(base, count: rows, stride: size.width * 4) }
            }
            y += rows
        }
        _ = try jpeg.finish()
        return plan.finish(resampler.image, isIncremental: false)
    }

    /// Readies the output buffer before libjpeg's first write: a large one gets huge pages
    /// (advice that must come before any page is touched), a smaller one is faulted in by
    /// one call where it is fresh (``PageFaults/prefault(_:)``), as it is each time when a
    /// memory cache keeps every decode.
    private static func prepareOutput(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        if buffer.count >= hugePageMinimum {
            adviseHugePages(UnsafeMutableRawBufferPointer(buffer))
        } else {
            PageFaults.prefault(buffer)
        }
    }

    /// The smallest output ``adviseHugePages(_:)`` asks huge pages for: two of them.
    private static let hugePageMinimum = 4 << 20

    /// Asks Linux to back the 2 MB-aligned middle of a large, not yet touched output buffer
    /// with transparent huge pages. Writing a 12 MP image otherwise takes 12,000 page faults
    /// of 4 KB, about a third of a full decode (perf: exc_page_fault, LRU and memcg work);
    /// NumPy asks the same for the arrays PyTurboJPEG decodes into. Only advice: the kernel
    /// may decline, and nothing changes elsewhere.
    private static func adviseHugePages(_ buffer: UnsafeMutableRawBufferPointer) {
        #if os(Linux)
        let huge = hugePageMinimum / 2
        guard buffer.count >= hugePageMinimum, let base = buffer.baseAddress else { return }
        let start = (Int(bitPattern: base) + huge - 1) & ~(huge - 1)
        let end = (Int(bitPattern: base) + buffer.count) & ~(huge - 1)
        guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(aligned, end - start, MADV_HUGEPAGE)
        #endif
    }

    /// Whether `data`'s first bytes look like a JPEG; any JPEG decodes incrementally.
    public func canDecodeIncrementally(_ data: Data) -> Bool { canDecode(data) }

    /// A ``JPEGIncrementalDecoder`` for one transfer.
    public func makeIncrementalDecoder(options: ImageDecodeOptions) -> any ProgressiveImageDecoder {
        JPEGIncrementalDecoder(options: options)
    }
}
