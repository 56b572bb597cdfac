import CPNGShim

/// Decodes one complete PNG stream (no animation) to RGBA through libpng.
///
/// All libpng calls go through `CPNGShim`, which catches libpng's longjmp errors in C.
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
    static func decode(
        _ p: UnsafeRawBufferPointer,
        checkSize: (_ width: Int, _ height: Int) throws -> Void,
        resampledSize: (PixelSize) -> PixelSize? = { _ in nil }
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
            return try decodeResampled(decoder, info: info, to: target)
        }
        var status = CPNG_OK
        let pixels = PixelBuffer(width: width, height: height) { buffer in
            guard let out = buffer.baseAddress, buffer.count == byteCount else {
                status = CPNG_ERROR
                return
            }
            status = cpng_decoder_read_image(decoder, out, width * 4)
        }
        guard status == CPNG_OK, pixels.width == width, pixels.height == height else {
            throw failure(decoder)
        }
        return pixels
    }

    /// The rows of a non-interlaced image, 32 at a time, through a ``Resampler``.
    private static func decodeResampled(_ decoder: OpaquePointer, info: cpng_info, to target: PixelSize) throws -> PixelBuffer {
        let width = Int(info.width), height = Int(info.height)
        var resampler = Resampler(sourceWidth: width, sourceHeight: height, width: target.width, height: target.height,
                                  isOpaque: info.has_alpha == 0)
        // At most 128 KiB of rows at a time: under glibc's default 128 KiB mmap threshold,
        // so the strip comes from the heap instead of fresh pages each image.
        let stripHeight = max(1, min(height, OrientationWriter.stripHeight, (128 << 10) / (width * 4)))
        var strip = PixelBuffer(width: width, height: stripHeight)
        var y = 0
        while y < height {
            let rows = min(stripHeight, height - y)
            let status = strip.withUnsafeMutableBytes { s -> Int32 in
                guard let base = s.baseAddress else { return CPNG_ERROR }
                return cpng_decoder_read_rows(decoder, base, width * 4, UInt32(rows))
            }
            guard status == CPNG_OK else { throw failure(decoder) }
            strip.bytes.withUnsafeBufferPointer { s in
                if let base = s.baseAddress { resampler.consume(base, count: rows, stride: width * 4) }
            }
            y += rows
        }
        guard cpng_decoder_finish(decoder) == CPNG_OK else { throw failure(decoder) }
        return resampler.image
    }

    private static func failure(_ decoder: OpaquePointer) -> WebImageError {
        let message = String(cString: cpng_decoder_message(decoder))
        return .badImageData("PNG: " + (message.isEmpty ? "the image cannot be decoded" : message))
    }
}
