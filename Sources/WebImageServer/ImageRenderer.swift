import Foundation
import WebImage
import WebImageCodecs

/// Turns a source's bytes into the proxy's output: decode at the planned size, resize
/// (fit or fill with gravity), blur, frame and pixel limits, encode. Blocking CPU work:
/// runs on ``DecodeQueue``.
///
/// An animated output (``OutputChoice``) is decoded, transformed and encoded one frame
/// at a time (``AnimatedImage``), so its memory is a canvas and a frame, not every frame.
struct ImageRenderer: Sendable {
    var options: ProxyOptions
    var output: OutputChoice
    var quality: Int
    var maxSourcePixels: Int
    var maxOutputPixels: Int
    var maxAnimationFrames: Int
    var coder: CoverDecodingCoder

    /// The decode the coder is asked for: a fit box for `fit`, a cover box (as
    /// `preserveAspectRatio == false`, see ``CoverDecodingCoder``) for `fill`; `nil`
    /// decodes the source at its own size.
    static func decodeBox(for options: ProxyOptions) -> (size: PixelSize, cover: Bool)? {
        let box = options.pixelBox
        switch (box.width, box.height) {
        case (0, 0): return nil
        case (0, let h): return (PixelSize(width: ImageDecodeOptions.maxThumbnailSide, height: h), false)
        case (let w, 0): return (PixelSize(width: w, height: ImageDecodeOptions.maxThumbnailSide), false)
        case (let w, let h): return (PixelSize(width: w, height: h), options.mode != .fit)
        }
    }

    /// The decode options for this request's box.
    var decodeOptions: ImageDecodeOptions {
        var decode = ImageDecodeOptions(maxPixelCount: maxSourcePixels)
        if let box = Self.decodeBox(for: options) {
            decode.thumbnailPixelSize = box.size
            decode.preserveAspectRatio = !box.cover
        }
        return decode
    }

    /// Renders `data`.
    ///
    /// - Throws: ``WebImageError/Code/imageTooLarge`` past the frame or output-pixel
    ///   limits, ``WebImageError/Code/badImageData`` for data that does not decode,
    ///   ``WebImageError/Code/unsupportedFormat`` when no encoder is installed,
    ///   ``WebImageError/Code/encodingFailed``.
    func render(_ data: Data) throws(WebImageError) -> (Data, ImageFormat) {
        let image = try DecodedImage.decodingLazily(data, options: decodeOptions, coder: coder)
        let (format, animated) = output.resolve(source: image.format, frameCount: image.frameCount, hasAlpha: image.hasAlpha)
        let encodeOptions = ImageEncodeOptions(quality: Double(quality) / 100)
        if animated, let animation = image.animation {
            if animation.info.frameCount > maxAnimationFrames {
                throw .imageTooLarge("\(animation.info.frameCount) frames exceed the limit of \(maxAnimationFrames)")
            }
            let geometry = try geometry(for: animation.info.frameSize)
            try checkOutput(geometry.output, frames: animation.info.frameCount)
            let transformed = animation.transformed(key: "proxy") { frame, _ in
                guard let pixels = self.apply(geometry, to: frame.pixels) else { return nil }
                return ImageFrame(pixels: pixels, duration: frame.duration)
            }
            return (try transformed.encoded(as: format, options: encodeOptions), format)
        }
        guard let first = image.frames.first?.pixels else { throw .badImageData("The image has no frames") }
        let geometry = try geometry(for: PixelSize(width: first.width, height: first.height))
        try checkOutput(geometry.output, frames: 1)
        guard let pixels = apply(geometry, to: first) else { throw .badImageData("The image could not be resized") }
        let still = DecodedImage(pixels: pixels, format: image.format, scale: image.scale, orientation: image.orientation)
        return (try coder.encode(still, as: format, options: encodeOptions), format)
    }

    private func checkOutput(_ size: PixelSize, frames: Int) throws(WebImageError) {
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height * frames)
        if overflow || pixels > maxOutputPixels {
            throw .imageTooLarge("The output exceeds the limit of \(maxOutputPixels) pixels")
        }
    }

    /// Where to crop a decoded frame of `size` and what size to resample the crop to.
    struct Geometry {
        var crop: PixelRect
        var output: PixelSize
        var source: PixelSize
    }

    /// The resize step: the decode already fitted (or covered) the box, so this mostly
    /// crops; it resamples only what the decoder could not do exactly.
    func geometry(for size: PixelSize) throws(WebImageError) -> Geometry {
        let box = options.pixelBox
        let w = size.width, h = size.height
        guard w > 0, h > 0 else { throw .badImageData("The image is empty") }
        var crop = PixelRect(x: 0, y: 0, width: w, height: h)
        var out = PixelSize(width: w, height: h)
        if box.width > 0 && box.height > 0 && options.mode != .fit {
            let scale = max(Double(box.width) / Double(w), Double(box.height) / Double(h))
            if scale <= 1 {
                crop.width = min(w, max(1, Int((Double(box.width) / scale).rounded())))
                crop.height = min(h, max(1, Int((Double(box.height) / scale).rounded())))
                out = box
            } else if options.mode == .fillDown {
                // Never enlarge: the largest crop of the box's proportions the source holds.
                let shrink = min(Double(w) / Double(box.width), Double(h) / Double(box.height))
                crop.width = max(1, Int((Double(box.width) * shrink).rounded()))
                crop.height = max(1, Int((Double(box.height) * shrink).rounded()))
                out = PixelSize(width: crop.width, height: crop.height)
            } else {
                crop.width = min(w, box.width)
                crop.height = min(h, box.height)
                out = PixelSize(width: crop.width, height: crop.height)
            }
            (crop.x, crop.y) = origin(of: crop, in: size)
        } else if box.width > 0 || box.height > 0 {
            let sw = box.width > 0 ? Double(box.width) / Double(w) : .infinity
            let sh = box.height > 0 ? Double(box.height) / Double(h) : .infinity
            let scale = min(1, sw, sh)
            out = PixelSize(width: max(1, Int((Double(w) * scale).rounded())), height: max(1, Int((Double(h) * scale).rounded())))
        }
        return Geometry(crop: crop, output: out, source: size)
    }

    /// Crops, resamples and blurs one frame; `nil` when it does not have the planned size.
    func apply(_ geometry: Geometry, to pixels: PixelBuffer) -> PixelBuffer? {
        guard pixels.width == geometry.source.width, pixels.height == geometry.source.height else { return nil }
        let whole = geometry.crop.width == pixels.width && geometry.crop.height == pixels.height
        guard var result = whole ? pixels : pixels.cropped(to: geometry.crop) else { return nil }
        if result.width != geometry.output.width || result.height != geometry.output.height {
            result = result.resampled(width: geometry.output.width, height: geometry.output.height)
        }
        if options.blur > 0 { result = result.blurred(radius: options.blur * options.dpr) }
        return result
    }

    /// Where a crop of `crop`'s size sits for the gravity.
    private func origin(of crop: PixelRect, in size: PixelSize) -> (Int, Int) {
        let dx = size.width - crop.width, dy = size.height - crop.height
        switch options.gravity {
        case .center, .smart: return (dx / 2, dy / 2)
        case .north: return (dx / 2, 0)
        case .south: return (dx / 2, dy)
        case .west: return (0, dy / 2)
        case .east: return (dx, dy / 2)
        }
    }
}
