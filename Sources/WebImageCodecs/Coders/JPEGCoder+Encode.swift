import CJPEGShim
import Foundation

extension JPEGCoder {
    /// `true` for ``ImageFormat/jpeg``.
    public func canEncode(to format: ImageFormat) -> Bool { format == .jpeg }

    /// Encodes the first frame as a JPEG (4:2:0 YCbCr): baseline with optimized Huffman
    /// tables by default, progressive with ``ImageEncodeOptions/progressive``, standard
    /// tables with ``ImageEncodeOptions/optimizeHuffmanTables`` off.
    ///
    /// `options.quality` 0…1 maps to libjpeg's 0…100. JPEG has no alpha: translucent
    /// pixels are composited over white, as browsers show them on a default page.
    /// Runs on the calling thread.
    ///
    /// - Throws: ``WebImageError/Code/unsupportedFormat`` for other formats,
    ///   ``WebImageError/Code/encodingFailed`` when libjpeg fails (for example a side
    ///   over 65,500 pixels).
    public func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
        guard canEncode(to: format) else {
            throw WebImageError.unsupportedFormat("JPEGCoder cannot encode \(format.rawValue)")
        }
        let pixels = image.pixels
        guard pixels.width > 0, pixels.height > 0 else {
            throw WebImageError(.encodingFailed, "Cannot encode an empty image as JPEG")
        }
        let handle = try JPEGEncoderHandle()
        let (encoder, quality) = (handle.encoder, JPEGEncoderHandle.quality(options))
        let check = handle.check

        let opaque = !pixels.hasAlpha
        try check(wi_jenc_start(encoder, UInt32(pixels.width), UInt32(pixels.height), quality, opaque ? 1 : 0,
                                options.progressive ? 1 : 0, options.optimizeHuffmanTables ? 1 : 0))
        try WebImageError.typed(as: .encodingFailed) { try pixels.bytes.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return }
            if opaque {
                // libjpeg-turbo reads RGBA rows and ignores the alpha byte: no copy needed.
                try check(wi_jenc_write_rows(encoder, base, pixels.bytesPerRow, UInt32(pixels.height)))
                return
            }
            var row = [UInt8](repeating: 0, count: pixels.width * 3)
            try row.withUnsafeMutableBufferPointer { rgb in
                guard let rowBase = rgb.baseAddress else { return }
                for y in 0..<pixels.height {
                    Self.compositeOverWhite(base + y * pixels.bytesPerRow, into: rgb, count: pixels.width)
                    try check(wi_jenc_write_rows(encoder, rowBase, rgb.count, 1))
                }
            }
        } }
        return try handle.finish()
    }

    private static func compositeOverWhite(_ rgba: UnsafePointer<UInt8>, into rgb: UnsafeMutableBufferPointer<UInt8>, count: Int) {
        for x in 0..<count {
            let a = Int(rgba[x * 4 + 3])
            let white = (255 - a) * 255
            rgb[x * 3] = UInt8((Int(rgba[x * 4]) * a + white + 127) / 255)
            rgb[x * 3 + 1] = UInt8((Int(rgba[x * 4 + 1]) * a + white + 127) / 255)
            rgb[x * 3 + 2] = UInt8((Int(rgba[x * 4 + 2]) * a + white + 127) / 255)
        }
    }
}
