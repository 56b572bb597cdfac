import CPNGShim

/// Decodes one complete PNG stream (no animation) to RGBA through libpng.
///
/// All libpng calls go through `CPNGShim`, which catches libpng's longjmp errors in C.
/// The common PNGs (non-interlaced 8-bit gray, gray+alpha, RGB, RGBA, palette) take a fast
/// path there once libpng has read the header: libdeflate inflates the IDAT data at once and
/// the shim unfilters it (zlib and libpng's row loop were a fifth of the bulk job's CPU).
/// Anything that path refuses, faults included, goes through libpng as before, so the
/// pixels and the errors are libpng's.
enum PNGStillDecoder {
    /// Decodes `p` at full size, or straight to a smaller size. `checkSize` runs with the
    /// header's width and height before the pixel buffer is allocated, and may throw to
    /// refuse the image.
    ///
    /// `resampledSize`, given the header's size, returns the size to Lanczos-resample to
    /// (`nil`: keep the full size). A non-interlaced image is then decoded a strip of rows at
    /// a time into the resampler, so the full-size image never exists: a 6 MP thumbnail
    /// source no longer costs 24 MB and ~6,000 fresh pages. An interlaced one is decoded
    /// whole (its rows arrive in seven passes) and left for the caller to resample.
    ///
    /// `fastPath: false` sends every image through libpng (the tests' reference).
    static func decode(
        _ p: UnsafeRawBufferPointer,
        checkSize: (_ width: Int, _ height: Int) throws -> Void,
        resampledSize: (PixelSize) -> PixelSize? = { _ in nil },
        fastPath: Bool = true
    ) throws -> PixelBuffer {
        guard let base = p.baseAddress, p.count >= 8 else {
            throw WebImageError.badImageData("PNG: the data is too short (\(p.count) bytes)")
        }
        guard let decoder = cpng_decoder_create(base.assumingMemoryBound(to: UInt8.self), p.count) else {
            throw WebImageError.badImageData("PNG: out of memory creating the decoder")
        }
        defer { cpng_decoder_destroy(decoder) }
        var info = cpng_info()
        guard cpng_decoder_read_header(decoder, &info) == CPNG_OK else {
            throw failure(decoder)
        }
        let width = Int(info.width), height = Int(info.height)
        try checkSize(width, height)
        guard let byteCount = PixelBuffer.byteCount(width: width, height: height) else {
            throw WebImageError.imageTooLarge("PNG: \(width)x\(height) does not fit in memory")
        }
        if info.interlaced == 0, let target = resampledSize(PixelSize(width: width, height: height)),
           target.width > 0, target.height > 0 {
            return try decodeResampled(decoder, info: info, to: target, fastPath: fastPath)
        }
        let fast = fastPath && cpng_fast_begin(decoder) == CPNG_OK
        var status = CPNG_OK
        let pixels = PixelBuffer(width: width, height: height) { buffer in
            guard let out = buffer.baseAddress, buffer.count == byteCount else {
                status = CPNG_ERROR
                return
            }
            PageFaults.prefault(buffer)
            status = fast ? cpng_fast_rows(decoder, out, width * 4, UInt32(height))
                          : cpng_decoder_read_image(decoder, out, width * 4)
        }
        guard status == CPNG_OK, pixels.width == width, pixels.height == height else {
            throw failure(decoder)
        }
        return pixels
    }

    /// The rows of a non-interlaced image, 32 at a time, through a ``Resampler``.
    private static func decodeResampled(_ decoder: OpaquePointer, info: cpng_info, to target: PixelSize,
                                        fastPath: Bool) throws -> PixelBuffer {
        let width = Int(info.width), height = Int(info.height)
        var resampler = Resampler(sourceWidth: width, sourceHeight: height, width: target.width, height: target.height,
                                  isOpaque: info.has_alpha == 0)
        // At most 128 KiB of rows at a time: under glibc's default 128 KiB mmap threshold,
        // so the strip comes from the heap instead of fresh pages each image.
        let stripHeight = max(1, min(height, OrientationWriter.stripHeight, (128 << 10) / (width * 4)))
        var strip = PixelBuffer(width: width, height: stripHeight)
        let fast = fastPath && cpng_fast_begin(decoder) == CPNG_OK
        var y = 0
        while y < height {
            let rows = min(stripHeight, height - y)
            let status = strip.withUnsafeMutableBytes { s -> Int32 in
                guard let base = s.baseAddress else { return CPNG_ERROR }
                return fast ? cpng_fast_rows(decoder, base, width * 4, UInt32(rows))
                            : cpng_decoder_read_rows(decoder, base, width * 4, UInt32(rows))
            }
            guard status == CPNG_OK else { throw failure(decoder) }
            strip.bytes.withUnsafeBufferPointer { s in
                if let base = s.baseAddress { resampler.consume(base, count: rows, stride: width * 4) }
            }
            y += rows
        }
        // The fast path checked the chunks up to IEND before taking the image.
        guard fast || cpng_decoder_finish(decoder) == CPNG_OK else { throw failure(decoder) }
        return resampler.image
    }

    /// Whether `p` would take the fast path (the tests check that their files exercise it).
    static func takesFastPath(_ p: UnsafeRawBufferPointer) -> Bool {
        guard let base = p.baseAddress,
              let decoder = cpng_decoder_create(base.assumingMemoryBound(to: UInt8.self), p.count) else { return false }
        defer { cpng_decoder_destroy(decoder) }
        var info = cpng_info()
        return cpng_decoder_read_header(decoder, &info) == CPNG_OK && cpng_fast_begin(decoder) == CPNG_OK
    }

    private static func failure(_ decoder: OpaquePointer) -> WebImageError {
        let message = String(cString: cpng_decoder_message(decoder))
        return .badImageData("PNG: " + (message.isEmpty ? "the image cannot be decoded" : message))
    }
}
