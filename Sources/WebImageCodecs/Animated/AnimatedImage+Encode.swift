import Foundation

extension AnimatedImage {
    /// The formats ``encoded(as:options:)`` writes: GIF and WebP.
    public static let encodableFormats: Set<ImageFormat> = [.gif, .webp]

    /// Encodes the animation as an animated GIF or WebP, decoding (and transforming) one
    /// frame at a time as the encoder takes it, so memory stays at one canvas and one frame
    /// plus the encoder's own state and the output, where encoding a whole
    /// ``DecodedImage`` needs every frame at once. Durations and the loop count are kept;
    /// a truncated animation gives the frames that decode (``availableFrameCount``).
    /// With ``ImageEncodeOptions/firstFrameOnly`` only the first frame is written. Runs on
    /// the caller's thread and blocks: call it from ``DecodeQueue``.
    ///
    /// An ``ImageCoder`` given a lazy ``DecodedImage`` encodes only the frames it holds
    /// (the poster): encode its ``DecodedImage/animation`` with this instead.
    ///
    /// ```swift
    /// let gif = try image.animation?.encoded(as: .gif)
    /// ```
    ///
    /// - Throws: ``WebImageError/Code/unsupportedFormat`` for a format other than GIF or
    ///   WebP; ``WebImageError/Code/encodingFailed`` when the encoder fails (or a transform
    ///   gives frames of different sizes); what ``frame(at:)`` throws for the first frame.
    public func encoded(as format: ImageFormat, options: ImageEncodeOptions = ImageEncodeOptions()) throws(WebImageError) -> Data {
        guard Self.encodableFormats.contains(format) else {
            throw .unsupportedFormat("An animation encodes as GIF or WebP, not \(format.rawValue)")
        }
        let count = options.firstFrameOnly ? 1 : max(1, availableFrameCount)
        // Each frame's buffer goes back to the pool once the encoder took the next one.
        var previous: PixelBuffer?
        let next = { (index: Int) throws(WebImageError) -> ImageFrame in
            if let done = previous.take() { self.recycle(done) }
            let frame = try self.frame(at: index)
            previous = frame.pixels
            return frame
        }
        if format == .gif {
            return try GIFEncoder.encode(count: count, loopCount: info.loopCount, frame: next)
        }
        let first = try next(0)
        if count == 1 { return try WebPCoder().encodeStill(first.pixels, options: options) }
        let size = PixelSize(width: first.pixels.width, height: first.pixels.height)
        var pending: ImageFrame? = first
        return try WebPCoder().encodeAnimation(size: size, count: count, loopCount: info.loopCount, options: options) {
            (index: Int) throws(WebImageError) -> ImageFrame in
            if index == 0, let frame = pending.take() { return frame }
            return try next(index)
        }
    }
}
