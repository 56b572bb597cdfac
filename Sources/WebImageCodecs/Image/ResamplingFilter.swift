/// How ``PixelBuffer/resampled(width:height:filter:)`` computes each output pixel.
public enum ResamplingFilter: Sendable, Hashable, CaseIterable {
    /// Lanczos3, as libvips' thumbnails and Pillow's `LANCZOS` resize: sharp, with little
    /// aliasing. The default everywhere WebImage resizes.
    ///
    /// Downscaling first averages whole blocks of pixels (an integer box shrink) down to at
    /// least twice the target, then applies Lanczos3 with its support stretched by the
    /// remaining scale, as libvips' `reduce` does with its default gap of 2. Upscaling
    /// applies Lanczos3 unstretched (six source pixels per output pixel and axis). Output
    /// pixel centres map to source positions with the centre convention (pixel `i` of `n`
    /// covers `[i, i + 1)`, so both images span the same area), and taps beyond an edge
    /// repeat the edge pixel. Colour is weighted by alpha (premultiplied), so transparent
    /// pixels do not darken their neighbours; values are gamma-encoded sRGB, as libvips'
    /// thumbnails (not linear light). Intermediate values keep 6 bits below the 8-bit value
    /// and each pass rounds to nearest.
    case lanczos3
    /// Area averaging when downscaling (each output pixel is the mean of the source area
    /// it covers, fractional edges weighted) and bilinear interpolation when upscaling.
    /// Cheaper and softer than ``lanczos3``; WebImage's filter before 2026.
    case box
}
