import CPNGShim

/// Decodes one complete PNG stream (no animation) to RGBA through libpng.
///
/// All libpng calls go through `CPNGShim`, which catches libpng's longjmp errors in C.
enum PNGStillDecoder {
    /// Decodes `p` at full size. `checkSize` runs with the header's width and height
    /// before the pixel buffer is allocated, and may throw to refuse the image.
    static func decode(
        _ p: UnsafeRawBufferPointer,
        checkSize: (_ width: Int, _ height: Int) throws -> Void
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

    private static func failure(_ decoder: OpaquePointer) -> WebImageError {
        let message = String(cString: cpng_decoder_message(decoder))
        return .badImageData("PNG: " + (message.isEmpty ? "the image cannot be decoded" : message))
    }
}
