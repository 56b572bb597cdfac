import CWebP
import Foundation

extension WebPCoder {
    /// Encodes one RGBA buffer as a still WebP.
    func encodeStill(_ pixels: PixelBuffer, options: ImageEncodeOptions) throws(WebImageError) -> Data {
        var config = try Self.encoderConfig(options)
        var picture = try Self.picture(pixels)
        defer { WebPPictureFree(&picture) }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let ok = withUnsafeMutablePointer(to: &writer) { writerPointer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            return WebPEncode(&config, &picture)
        }
        guard ok != 0, let bytes = writer.mem else {
            throw WebImageError(.encodingFailed, "libwebp could not encode the image (error \(picture.error_code.rawValue))")
        }
        return Data(bytes: bytes, count: writer.size)
    }

    /// Encodes every frame as an animated WebP with the image's durations and loop count.
    ///
    /// libwebp's animation encoder stores only what changed between frames, and merges a
    /// frame identical to the one before it into that frame's duration.
    func encodeAnimation(_ image: DecodedImage, options: ImageEncodeOptions) throws(WebImageError) -> Data {
        try encodeAnimation(size: PixelSize(width: image.width, height: image.height), count: image.frames.count,
                            loopCount: image.loopCount, options: options) { image.frames[$0] }
    }

    /// Encodes `count` frames of `size`, asking `frame` for each in order when it is added,
    /// so a caller decoding frames on demand holds one at a time (libwebp keeps what it
    /// needs to compare frames). Every frame must be of `size`.
    func encodeAnimation(
        size: PixelSize, count: Int, loopCount: Int, options: ImageEncodeOptions,
        frame: (Int) throws(WebImageError) -> ImageFrame
    ) throws(WebImageError) -> Data {
        var config = try Self.encoderConfig(options)
        var encoderOptions = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&encoderOptions) != 0 else {
            throw WebImageError(.encodingFailed, "libwebp rejected its animation encoder options")
        }
        encoderOptions.anim_params.loop_count = Int32(clamping: loopCount)
        guard let encoder = WebPAnimEncoderNew(Int32(clamping: size.width), Int32(clamping: size.height), &encoderOptions)
        else { throw WebImageError(.encodingFailed, "libwebp cannot animate a \(size.width)x\(size.height) canvas") }
        defer { WebPAnimEncoderDelete(encoder) }

        var timestamp = 0
        for index in 0..<count {
            let next = try frame(index)
            guard next.pixels.width == size.width, next.pixels.height == size.height else {
                throw WebImageError(.encodingFailed, "Frame \(index) is \(next.pixels.width)x\(next.pixels.height), not \(size)")
            }
            var picture = try Self.picture(next.pixels)
            defer { WebPPictureFree(&picture) }
            guard WebPAnimEncoderAdd(encoder, &picture, Int32(clamping: timestamp), &config) != 0 else {
                throw Self.animationError(encoder)
            }
            timestamp += max(0, Int((next.duration * 1000).rounded()))
        }
        guard WebPAnimEncoderAdd(encoder, nil, Int32(clamping: timestamp), nil) != 0 else {
            throw Self.animationError(encoder)
        }
        var output = WebPData()
        guard WebPAnimEncoderAssemble(encoder, &output) != 0, let bytes = output.bytes else {
            throw Self.animationError(encoder)
        }
        defer { WebPDataClear(&output) }
        return Data(bytes: bytes, count: output.size)
    }

    /// A validated encoder configuration for `options`.
    ///
    /// Lossless encoding keeps the colour under fully transparent pixels (`exact`), so a
    /// lossless round trip gives back every byte.
    private static func encoderConfig(_ options: ImageEncodeOptions) throws(WebImageError) -> WebPConfig {
        var config = WebPConfig()
        let quality = Float(options.lossless ? 75 : options.quality * 100)
        guard WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, quality) != 0 else {
            throw WebImageError(.encodingFailed, "libwebp rejected its encoder configuration")
        }
        if options.lossless {
            config.lossless = 1
            config.exact = 1
        }
        guard WebPValidateConfig(&config) != 0 else {
            throw WebImageError(.encodingFailed, "libwebp rejected the encoder settings")
        }
        return config
    }

    /// A picture holding a copy of `pixels`; the caller frees it with `WebPPictureFree`.
    private static func picture(_ pixels: PixelBuffer) throws(WebImageError) -> WebPPicture {
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else {
            throw WebImageError(.encodingFailed, "libwebp rejected its picture structure")
        }
        guard pixels.width > 0, pixels.height > 0,
              pixels.width <= Int(WEBP_MAX_DIMENSION), pixels.height <= Int(WEBP_MAX_DIMENSION)
        else {
            throw WebImageError(.encodingFailed, "WebP cannot hold a \(pixels.width)x\(pixels.height) image")
        }
        picture.width = Int32(pixels.width)
        picture.height = Int32(pixels.height)
        // ARGB keeps lossless exact; lossy converts to YUV inside WebPEncode either way.
        picture.use_argb = 1
        let imported = pixels.bytes.withUnsafeBufferPointer { bytes in
            WebPPictureImportRGBA(&picture, bytes.baseAddress, Int32(pixels.bytesPerRow))
        }
        guard imported != 0 else {
            WebPPictureFree(&picture)
            throw WebImageError(.encodingFailed, "libwebp could not import a \(pixels.width)x\(pixels.height) image")
        }
        return picture
    }

    private static func animationError(_ encoder: OpaquePointer) -> WebImageError {
        let detail = WebPAnimEncoderGetError(encoder).map { String(cString: $0) } ?? "unknown error"
        return WebImageError(.encodingFailed, "libwebp could not encode the animation: \(detail)")
    }
}
