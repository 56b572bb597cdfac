/// Turns full-size decoded frames into what the decode options ask for: resampled to the
/// target size, then turned upright.
///
/// For codecs that cannot scale while decoding (AVIF, HEIF, JPEG XL): resampling before
/// turning moves the fewest pixels, so the size is worked out in stored orientation.
struct FrameShaper {
    /// The size frames are decoded at, before orientation.
    let stored: PixelSize
    /// The orientation the file declared.
    let orientation: Orientation
    /// The options' target size in stored orientation.
    let scaledSize: PixelSize
    private let turns: Bool

    init(stored: PixelSize, orientation: Orientation, options: ImageDecodeOptions) {
        self.stored = stored
        self.orientation = orientation
        turns = options.applyOrientation && orientation != .up
        // The options' size applies to the upright picture: swap there and back for 5–8.
        let swaps = turns && orientation.swapsDimensions
        func swapped(_ s: PixelSize) -> PixelSize { swaps ? PixelSize(width: s.height, height: s.width) : s }
        scaledSize = swapped(options.targetSize(for: swapped(stored)))
    }

    /// The size of every shaped frame: ``scaledSize`` turned upright when orientation applies.
    var outputSize: PixelSize {
        turns && orientation.swapsDimensions ? PixelSize(width: scaledSize.height, height: scaledSize.width) : scaledSize
    }

    /// Whether ``shape(_:)`` returns its input unchanged.
    var isIdentity: Bool { scaledSize == stored && !turns }

    /// `pixels` (at ``stored`` size) resampled and turned.
    func shape(_ pixels: PixelBuffer) -> PixelBuffer {
        var result = pixels
        if scaledSize != PixelSize(width: pixels.width, height: pixels.height) {
            result = result.resampled(width: scaledSize.width, height: scaledSize.height)
        }
        return turns ? result.oriented(orientation) : result
    }
}
