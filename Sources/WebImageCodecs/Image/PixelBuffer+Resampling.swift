extension PixelBuffer {
    /// Returns the image resampled to `width` × `height` with `filter`.
    ///
    /// The default, ``ResamplingFilter/lanczos3``, is libvips' thumbnail filter: sharp, with
    /// little aliasing, colour weighted by alpha. ``ResamplingFilter/box`` (area averaging,
    /// bilinear when enlarging) is cheaper and softer. Source and output span the same area
    /// (the aspect ratio changes if the sizes ask for it). A size of 0 or less gives an
    /// empty buffer; the same size returns the buffer itself.
    ///
    /// Runs on the caller's thread. Lanczos3 costs about one pass over the source plus
    /// ~6 × (source/output, at most 4) multiply-adds per output value and axis.
    ///
    /// ```swift
    /// let thumbnail = image.pixels.resampled(width: 400, height: 300)
    /// ```
    public func resampled(width outW: Int, height outH: Int, filter: ResamplingFilter = .lanczos3) -> PixelBuffer {
        guard outW > 0, outH > 0, width > 0, height > 0 else { return PixelBuffer(width: 0, height: 0) }
        if outW == width && outH == height { return self }
        switch filter {
        case .box:
            return boxResampled(width: outW, height: outH)
        case .lanczos3:
            // An opaque image takes the resampler's 8-bit path (the same result as weighting
            // colour by an alpha of 255, at about half the cost); the check stops at the
            // first translucent pixel.
            var resampler = Resampler(sourceWidth: width, sourceHeight: height, width: outW, height: outH,
                                      isOpaque: !hasAlpha)
            bytes.withUnsafeBufferPointer { source in
                if let base = source.baseAddress {
                    resampler.consume(base, count: height, stride: bytesPerRow)
                }
            }
            return resampler.image
        }
    }
}
