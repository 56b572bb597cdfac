import CAVIF
import Foundation

extension AVIFCoder {
    /// Encodes `image` as AVIF with libavif (AV1 through libaom).
    ///
    /// ``ImageEncodeOptions/quality`` 0…1 maps to AV1 quantizers 63…0 (colour and alpha
    /// alike) on 4:2:0 YUV; ``ImageEncodeOptions/lossless`` stores 4:4:4 with the identity
    /// matrix at quantizer 0, so every RGB byte comes back. ``ImageEncodeOptions/speed``
    /// trades size for time. Alpha is kept when any pixel is translucent. The output is
    /// tagged sRGB (`nclx` 1/13/6, full range). Several frames make an image sequence with
    /// the frames' durations, unless ``ImageEncodeOptions/firstFrameOnly`` is set.
    ///
    /// Runs on the caller's thread; blocking, and the slowest encoder here (AV1 search).
    ///
    /// - Throws: ``WebImageError/Code/unsupportedFormat`` for a format other than AVIF,
    ///   ``WebImageError/Code/encodingFailed`` when libavif fails or has no AV1 encoder.
    public func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
        guard format == .avif else {
            throw WebImageError.unsupportedFormat("AVIFCoder cannot encode \(format.rawValue)")
        }
        guard image.width > 0, image.height > 0 else {
            throw WebImageError(.encodingFailed, "Cannot encode an empty image as AVIF")
        }
        let frames = options.firstFrameOnly ? [image.frames[0]] : image.frames
        guard let encoder = avifEncoderCreate() else {
            throw WebImageError(.encodingFailed, "libavif could not create an encoder")
        }
        defer { avifEncoderDestroy(encoder) }
        let quantizer = options.lossless
            ? Int32(AVIF_QUANTIZER_LOSSLESS) : Int32(((1 - options.quality) * Double(AVIF_QUANTIZER_WORST_QUALITY)).rounded())
        encoder.pointee.maxThreads = 1
        encoder.pointee.speed = Int32(options.speed)
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        encoder.pointee.minQuantizerAlpha = quantizer
        encoder.pointee.maxQuantizerAlpha = quantizer
        encoder.pointee.timescale = 1000

        let hasAlpha = image.hasAlpha
        let flags = frames.count == 1 ? AVIF_ADD_IMAGE_FLAG_SINGLE.rawValue : AVIF_ADD_IMAGE_FLAG_NONE.rawValue
        for frame in frames {
            let yuv = try Self.yuvImage(frame.pixels, lossless: options.lossless, alpha: hasAlpha)
            defer { avifImageDestroy(yuv) }
            let milliseconds = UInt64(max(1, (frame.duration * 1000).rounded()))
            try Self.check(avifEncoderAddImage(encoder, yuv, milliseconds, flags), encoder)
        }
        var output = avifRWData()
        try Self.check(avifEncoderFinish(encoder, &output), encoder)
        defer { avifRWDataFree(&output) }
        guard let bytes = output.data, output.size > 0 else {
            throw WebImageError(.encodingFailed, "libavif produced no data")
        }
        return Data(bytes: bytes, count: output.size)
    }

    /// A YUV image converted from `pixels`; the caller destroys it.
    private static func yuvImage(_ pixels: PixelBuffer, lossless: Bool, alpha: Bool) throws(WebImageError) -> UnsafeMutablePointer<avifImage> {
        let format = lossless ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420
        guard let image = avifImageCreate(UInt32(pixels.width), UInt32(pixels.height), 8, format) else {
            throw WebImageError(.encodingFailed, "libavif could not create a \(pixels.width)x\(pixels.height) image")
        }
        image.pointee.colorPrimaries = avifColorPrimaries(AVIF_COLOR_PRIMARIES_BT709)
        image.pointee.transferCharacteristics = avifTransferCharacteristics(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        image.pointee.matrixCoefficients = avifMatrixCoefficients(
            lossless ? AVIF_MATRIX_COEFFICIENTS_IDENTITY : AVIF_MATRIX_COEFFICIENTS_BT601)
        image.pointee.yuvRange = AVIF_RANGE_FULL
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.depth = 8
        rgb.ignoreAlpha = alpha ? AVIF_FALSE : AVIF_TRUE
        rgb.rowBytes = UInt32(pixels.bytesPerRow)
        let result = pixels.bytes.withUnsafeBufferPointer { source in
            // libavif only reads the RGB buffer; the type is mutable because the struct is shared with decoding.
            rgb.pixels = UnsafeMutablePointer(mutating: source.baseAddress)
            return avifImageRGBToYUV(image, &rgb)
        }
        guard result == AVIF_RESULT_OK else {
            avifImageDestroy(image)
            throw WebImageError(.encodingFailed, "libavif could not convert the pixels: \(String(cString: avifResultToString(result)))")
        }
        return image
    }

    private static func check(_ result: avifResult, _ encoder: UnsafeMutablePointer<avifEncoder>) throws(WebImageError) {
        guard result != AVIF_RESULT_OK else { return }
        let detail = withUnsafeBytes(of: encoder.pointee.diag.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        throw WebImageError(.encodingFailed, "libavif could not encode the image: \(String(cString: avifResultToString(result)))"
                                + (detail.isEmpty ? "" : " (\(detail))"))
    }
}
