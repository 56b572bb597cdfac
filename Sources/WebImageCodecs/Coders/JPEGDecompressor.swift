import CJPEGShim

/// One libjpeg decompressor, reached through the CJPEGShim C layer.
///
/// The shim catches libjpeg's fatal errors in C (they never unwind Swift frames) and this
/// type turns them into ``WebImageError``s: corrupt data is `badImageData` with libjpeg's
/// message; 12-bit, lossless, JPEG-LS and DNL files are `unsupportedFormat`; sides over
/// libjpeg's 65,500 pixels are `imageTooLarge`. After an error the decompressor refuses
/// further work. Not thread-safe: one owner at a time (the incremental decoder keeps it
/// behind its lock).
final class JPEGDecompressor {
    /// Progressive files with more scans than this are refused, as libjpeg-turbo's tools do.
    static let maxScans: Int32 = 500

    private let raw: OpaquePointer

    init() throws(WebImageError) {
        guard let raw = wi_jdec_create(Self.maxScans) else {
            throw .badImageData("Could not create a JPEG decoder (out of memory)")
        }
        self.raw = raw
    }

    deinit { wi_jdec_destroy(raw) }

    /// Points libjpeg at all bytes received so far. `bytes` must stay valid while later
    /// calls run, so callers make those calls inside the same `withUnsafeBytes`.
    func setInput(_ bytes: UnsafeRawBufferPointer, isComplete: Bool) {
        wi_jdec_set_input(raw, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, isComplete ? 1 : 0)
    }

    /// The header, or `nil` when more data is needed.
    func readHeader() throws(WebImageError) -> wi_jpeg_header? {
        var header = wi_jpeg_header()
        return try check(wi_jdec_read_header(raw, &header)) ? header : nil
    }

    /// The orientation in the first APP1 (EXIF) segment that has one.
    func exifOrientation() -> Orientation? {
        var index: Int32 = 0
        var bytes: UnsafePointer<UInt8>?
        var count = 0
        while wi_jdec_app1(raw, index, &bytes, &count) != 0 {
            if let bytes, let orientation = EXIFOrientation.parse(app1: UnsafeRawBufferPointer(start: bytes, count: count)) {
                return orientation
            }
            index += 1
        }
        return nil
    }

    /// The embedded ICC profile (APP2 chunks joined), or `nil` when there is none or its
    /// chunks are inconsistent; call after ``readHeader()``.
    func iccProfile() -> [UInt8]? {
        var bytes: UnsafePointer<UInt8>?
        var count = 0
        guard wi_jdec_icc_profile(raw, &bytes, &count) != 0, let bytes, count > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: bytes, count: count))
    }

    /// Sets RGBA (or CMYK) output, DCT scaling by 1/`scaleDenominator` and buffered-image
    /// mode; returns the output size.
    func configure(scaleDenominator: Int, buffered: Bool) throws(WebImageError) -> PixelSize {
        var width: UInt32 = 0, height: UInt32 = 0
        _ = try check(wi_jdec_configure(raw, UInt32(scaleDenominator), buffered ? 1 : 0, &width, &height))
        return PixelSize(width: Int(width), height: Int(height))
    }

    /// `false` when more data is needed.
    func start() throws(WebImageError) -> Bool { try check(wi_jdec_start(raw)) }

    /// Stops libjpeg from guessing the AC terms a progressive file has not sent; call
    /// after ``configure(scaleDenominator:buffered:)``.
    func disableBlockSmoothing() { wi_jdec_disable_block_smoothing(raw) }

    /// Decodes rows into `base` (4 bytes per pixel, `stride` bytes per row) until the last
    /// row or until the data runs out; returns the rows done so far in this output pass.
    func readRows(into base: UnsafeMutableRawPointer, stride: Int) throws(WebImageError) -> Int {
        var scanline: UInt32 = 0
        _ = try check(wi_jdec_read_rows(raw, base.assumingMemoryBound(to: UInt8.self), stride, &scanline))
        return Int(scanline)
    }

    /// Decodes at most `maxRows` rows into `base` (4 bytes per pixel, `stride` bytes per
    /// row, the first at `base`); returns how many it wrote. With complete input, fewer
    /// means the end of the image or truncated data (``isTruncated``).
    func readStrip(into base: UnsafeMutableRawPointer, stride: Int, maxRows: Int) throws(WebImageError) -> Int {
        var rows: UInt32 = 0
        _ = try check(wi_jdec_read_strip(raw, base.assumingMemoryBound(to: UInt8.self), stride, UInt32(maxRows), &rows))
        return Int(rows)
    }

    /// Whether the file is what ``configurePlanes(scaleDenominator:)`` decodes: three
    /// components, YCbCr, chroma sampled once per MCU (4:2:0, 4:2:2, 4:4:0, 4:4:4).
    var hasPlanes: Bool { wi_jdec_has_planes(raw) != 0 }

    /// Sets raw YCbCr output at 1/`scaleDenominator`; returns the Y, Cb and Cr planes' sizes.
    func configurePlanes(scaleDenominator: Int) throws(WebImageError) -> [wi_jpeg_plane] {
        var planes = [wi_jpeg_plane](repeating: wi_jpeg_plane(), count: 3)
        _ = try check(planes.withUnsafeMutableBufferPointer { wi_jdec_configure_planes(raw, UInt32(scaleDenominator), $0.baseAddress) })
        return planes
    }

    /// Lets ``start()`` give a planar decode to WebImage's scaled baseline decoder, which
    /// gives libjpeg-turbo's planes byte for byte (`wi_jpeg_scaled.c` in CJPEGShim): at 1/8
    /// from a megapixel up, where it is faster; with `everywhere`, at 1/4 and 1/8 whatever
    /// the size (for comparisons). Off by default.
    func allowScaledDecoder(_ allowed: Bool, everywhere: Bool = false) {
        wi_jdec_allow_scaled_decoder(raw, allowed ? (everywhere ? 2 : 1) : 0)
    }

    /// Whether ``start()`` gave the decode to the scaled decoder (else libjpeg-turbo decodes).
    var usedScaledDecoder: Bool { wi_jdec_used_scaled_decoder(raw) != 0 }

    /// Decodes the next row of MCUs (after ``start()``) and hands `body` each plane's new
    /// rows: plane index, first row, stride in bytes, row count. `false` once every row
    /// was handed out, or when complete input turned out truncated (``isTruncated``).
    func readPlanes(_ body: (Int, UnsafePointer<UInt8>, Int, Int) -> Void) throws(WebImageError) -> Bool {
        var rows: [UnsafePointer<UInt8>?] = [nil, nil, nil]
        var strides = [Int](repeating: 0, count: 3)
        var counts = [UInt32](repeating: 0, count: 3)
        let status = rows.withUnsafeMutableBufferPointer { r in
            strides.withUnsafeMutableBufferPointer { s in
                counts.withUnsafeMutableBufferPointer { c in
                    wi_jdec_read_planes(raw, r.baseAddress, s.baseAddress, c.baseAddress)
                }
            }
        }
        guard try check(status), !isTruncated else { return false }
        var any = false
        for i in 0..<3 where counts[i] > 0 {
            guard let first = rows[i] else { continue }
            body(i, first, strides[i], Int(counts[i]))
            any = true
        }
        return any
    }

    /// `false` when more data is needed.
    func finish() throws(WebImageError) -> Bool { try check(wi_jdec_finish(raw)) }

    /// Consumes the data received so far (buffered-image mode).
    func consumeInput() throws(WebImageError) -> (completedScans: Int, inputDone: Bool) {
        var scans: Int32 = 0, done: Int32 = 0
        _ = try check(wi_jdec_consume(raw, &scans, &done))
        return (Int(scans), done != 0)
    }

    /// Starts an output pass showing the coefficients up to `scan`; `false` when more data is needed.
    func startOutput(scan: Int) throws(WebImageError) -> Bool { try check(wi_jdec_start_output(raw, Int32(scan))) }

    /// Ends an output pass; `false` when more data is needed first.
    func finishOutput() throws(WebImageError) -> Bool { try check(wi_jdec_finish_output(raw)) }

    /// Whether complete data ended inside a scan, leaving part of the image missing.
    var isTruncated: Bool { wi_jdec_is_truncated(raw) != 0 }

    /// `true` for OK, `false` for suspended; throws for errors.
    private func check(_ status: wi_jpeg_status) throws(WebImageError) -> Bool {
        switch status {
        case WI_JPEG_OK: return true
        case WI_JPEG_SUSPENDED: return false
        case WI_JPEG_UNSUPPORTED: throw .unsupportedFormat("JPEG feature not supported: \(message)")
        case WI_JPEG_TOO_LARGE: throw .imageTooLarge("JPEG too large: \(message)")
        default: throw .badImageData("Corrupt JPEG: \(message)")
        }
    }

    private var message: String { String(cString: wi_jdec_message(raw)) }
}
