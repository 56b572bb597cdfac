import CWebP

extension WebPCoder {
    /// Frame durations at or under this many milliseconds play at 100 ms, as in browsers.
    static let minimumFrameMilliseconds = 10

    /// Decodes an animated WebP: every frame composed onto the canvas by libwebp, then
    /// converted to sRGB from the file's `ICCP` profile like a still.
    ///
    /// The caller has checked the canvas against the pixel limit; the frame count is
    /// checked here, from the demuxed chunks, before any frame is decoded.
    func decodeAnimation(
        _ p: UnsafeRawBufferPointer, header: WebPHeader, options: ImageDecodeOptions
    ) throws(WebImageError) -> DecodedImage {
        guard let base = p.baseAddress else { throw .badImageData("The WebP data is empty") }
        var data = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: p.count)
        var decoderOptions = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&decoderOptions) != 0 else {
            throw .badImageData("libwebp rejected its animation decoder options")
        }
        decoderOptions.color_mode = MODE_RGBA
        decoderOptions.use_threads = 0
        guard let decoder = WebPAnimDecoderNew(&data, &decoderOptions) else {
            throw .badImageData("The animated WebP data is corrupt or truncated")
        }
        defer { WebPAnimDecoderDelete(decoder) }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0, info.frame_count > 0 else {
            throw .badImageData("The animated WebP has no frames")
        }
        let width = Int(info.canvas_width), height = Int(info.canvas_height)
        let frameCount = options.firstFrameOnly ? 1 : Int(info.frame_count)
        try options.checkPixelLimit(width: width, height: height, frames: frameCount)

        var frames: [ImageFrame] = []
        frames.reserveCapacity(frameCount)
        var previousTimestamp: Int32 = 0
        while frames.count < frameCount, WebPAnimDecoderHasMoreFrames(decoder) != 0 {
            var canvas: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
                throw .badImageData("Frame \(frames.count + 1) of the animated WebP is corrupt")
            }
            let pixels = PixelBuffer(width: width, height: height) { out in
                out.baseAddress?.update(from: canvas, count: out.count)
            }
            let milliseconds = Int(timestamp) - Int(previousTimestamp)
            previousTimestamp = timestamp
            let shown = milliseconds <= Self.minimumFrameMilliseconds ? 100 : milliseconds
            frames.append(ImageFrame(pixels: pixels, duration: Double(shown) / 1000))
        }

        let demuxer = WebPAnimDecoderGetDemuxer(decoder)
        let orientation = header.hasEXIF ? demuxer.map { WebPHeader.orientation(in: $0) } ?? .up : .up
        let stored = PixelSize(width: width, height: height)
        let size = WebPHeader.decodeSize(stored: stored, orientation: orientation, options: options)
        let color = demuxer.flatMap { Self.colorSource(in: $0, header: header, options: options) }
        if size != stored || (options.applyOrientation && orientation != .up) || color != nil {
            for i in frames.indices {
                var pixels = frames[i].pixels
                if size != stored { pixels = pixels.resampled(width: size.width, height: size.height) }
                ColorConverter.convertToSRGB(&pixels, from: color, options: options)
                if options.applyOrientation { pixels = pixels.oriented(orientation) }
                frames[i].pixels = pixels
            }
        }
        guard let image = DecodedImage(
            frames: frames, format: .webp, loopCount: Int(info.loop_count),
            scale: options.scale, orientation: orientation)
        else { throw .badImageData("The animated WebP has no frames") }
        return image
    }
}
