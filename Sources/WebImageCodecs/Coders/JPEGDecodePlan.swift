import CJPEGShim

/// What a JPEG decode produces, worked out from the header before any pixels exist:
/// the DCT scaling libjpeg applies, the exact size after resampling, and the orientation.
///
/// Shared by ``JPEGCoder`` and ``JPEGIncrementalDecoder`` so partial and final images
/// come out the same way.
struct JPEGDecodePlan: Sendable {
    /// The EXIF orientation, `.up` when there is none.
    var orientation: Orientation
    /// Whether ``finish(_:isIncremental:)`` turns the pixels upright.
    var applyOrientation: Bool
    /// The stored (undecoded) size.
    var storedSize: PixelSize
    /// libjpeg decodes at 1/`scaleDenominator` (1, 2, 4 or 8) of the stored size.
    var scaleDenominator: Int
    /// The size to resample libjpeg's output to, in stored (not display) orientation.
    var storedTarget: PixelSize
    /// Whether the source is CMYK/YCCK, decoded as CMYK and converted here.
    var isCMYK: Bool
    /// Whether that CMYK is Adobe's inverted kind.
    var isInvertedCMYK: Bool
    var scale: Double
    /// The embedded ICC profile; pixels are converted to sRGB with it unless the options
    /// keep stored samples.
    var iccProfile: [UInt8]?
    var options: ImageDecodeOptions

    /// Checks the pixel limit against the header, then plans the decode.
    ///
    /// - Throws: ``WebImageError/Code/imageTooLarge`` before anything is allocated.
    init(header: wi_jpeg_header, orientation: Orientation?, options: ImageDecodeOptions,
         iccProfile: [UInt8]? = nil) throws(WebImageError) {
        let width = Int(header.width), height = Int(header.height)
        try options.checkPixelLimit(width: width, height: height)
        storedSize = PixelSize(width: width, height: height)
        self.orientation = orientation ?? .up
        applyOrientation = options.applyOrientation
        isCMYK = header.color == WI_JPEG_COLOR_CMYK
        isInvertedCMYK = header.adobe_marker != 0
        scale = options.scale
        self.iccProfile = iccProfile
        self.options = options

        // Thumbnail and scale-down sizes are meant for the upright picture.
        let swaps = self.orientation.swapsDimensions
        let display = swaps ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
        let target = options.targetSize(for: display)
        storedTarget = swaps ? PixelSize(width: target.height, height: target.width) : target

        scaleDenominator = Self.scaleDenominator(stored: storedSize, target: storedTarget, rule: options.shrinkOnLoad)
    }

    /// The DCT scale for a decode from `stored` to `target` by `rule` (see
    /// ``ShrinkOnLoadRule``): the shrink is the smaller of the two axes' factors.
    static func scaleDenominator(stored: PixelSize, target: PixelSize, rule: ShrinkOnLoadRule = .libvips) -> Int {
        guard target.width > 0, target.height > 0 else { return 1 }
        let shrink = min(Double(stored.width) / Double(target.width), Double(stored.height) / Double(target.height))
        return rule.scaleDenominator(shrink: shrink)
    }

    /// A resampler from libjpeg's output (`outputSize`, at 1/``scaleDenominator``) to
    /// ``storedTarget``. Its last row and column may stand for fewer source pixels than the
    /// others, so the source extent is the stored size over the scale, not the output size.
    func makeResampler(outputSize: PixelSize) -> Resampler {
        let n = Double(scaleDenominator)
        return Resampler(sourceWidth: outputSize.width, sourceHeight: outputSize.height,
                         width: storedTarget.width, height: storedTarget.height,
                         sourceExtent: (Double(storedSize.width) / n, Double(storedSize.height) / n), isOpaque: true)
    }

    /// Whether libjpeg's output of `size` needs resampling to the target.
    func resamples(outputSize size: PixelSize) -> Bool {
        size != storedTarget
    }

    /// Converts CMYK rows `rows` of `pixels` (4 bytes per pixel, as libjpeg wrote them) to
    /// RGBA: through the embedded CMYK profile when there is a usable one, else by the
    /// naive formula browsers also use for untagged CMYK.
    func convertCMYK(_ pixels: inout PixelBuffer, rows: Range<Int>) {
        guard isCMYK, !rows.isEmpty else { return }
        if let iccProfile, ColorConverter.convertCMYK(&pixels, rows: rows, profile: iccProfile,
                                                      isInverted: isInvertedCMYK, options: options) {
            return
        }
        let inverted = isInvertedCMYK
        let start = rows.lowerBound * pixels.bytesPerRow, end = rows.upperBound * pixels.bytesPerRow
        pixels.bytes.withUnsafeMutableBufferPointer { p in
            var i = start
            while i < end {
                var c = Int(p[i]), m = Int(p[i + 1]), y = Int(p[i + 2]), k = Int(p[i + 3])
                if !inverted {
                    c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k
                }
                // Adobe stores ink amounts inverted, so each value is already "how much light".
                p[i] = UInt8((c * k + 127) / 255)
                p[i + 1] = UInt8((m * k + 127) / 255)
                p[i + 2] = UInt8((y * k + 127) / 255)
                p[i + 3] = 255
                i += 4
            }
        }
    }

    /// Whether a decode whose libjpeg output has `size` can write its rows straight to
    /// their upright place (``OrientationWriter``): they need turning and no resampling.
    func turnsWhileDecoding(outputSize size: PixelSize) -> Bool {
        applyOrientation && orientation != .up && size == storedTarget
    }

    /// Resamples libjpeg's output to the exact target (Lanczos3; unless the caller did),
    /// converts it to sRGB (after resampling: fewer pixels) and turns it upright unless
    /// `isUpright` (the decoder already wrote it so).
    func finish(_ pixels: PixelBuffer, isIncremental: Bool, isUpright: Bool = false) -> DecodedImage {
        var result = pixels
        // Upright output exists only when no resampling was needed (turnsWhileDecoding).
        let size = PixelSize(width: result.width, height: result.height)
        if !isUpright && resamples(outputSize: size) {
            var resampler = makeResampler(outputSize: size)
            result.bytes.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { resampler.consume(base, count: size.height, stride: size.width * 4) }
            }
            result = resampler.image
        }
        if !isCMYK, let iccProfile {
            ColorConverter.convertToSRGB(&result, from: .iccProfile(iccProfile), options: options)
        }
        if applyOrientation && !isUpright {
            result = result.oriented(orientation)
        }
        return DecodedImage(pixels: result, format: .jpeg, scale: scale,
                            isIncremental: isIncremental, orientation: orientation)
    }
}
