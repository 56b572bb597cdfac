import Foundation
import WebImage
import WebImageCodecs

/// Turns a decoded source into the proxy's output: resize (fit or fill with gravity),
/// blur, frame and pixel limits, encode. Blocking CPU work: runs on ``DecodeQueue``.
struct ImageRenderer: Sendable {
    var options: ProxyOptions
    /// The output format; `nil` picks the source's family (see ``sourceFamilyFormat(_:)``).
    var format: ImageFormat?
    var quality: Int
    var maxOutputPixels: Int
    var maxAnimationFrames: Int
    var coder: any ImageCoder

    /// The decode the manager is asked for: a fit box for `fit`, a cover box (as
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

    /// The output for a source of `format` when the client accepts neither AVIF nor WebP:
    /// JPEG stays JPEG, GIF stays GIF (animations too), everything else becomes PNG when
    /// it has transparency and JPEG when it has none.
    static func sourceFamilyFormat(_ image: DecodedImage) -> ImageFormat {
        switch image.format {
        case .jpeg: .jpeg
        case .gif: .gif
        case .png, .apng: .png
        default: image.hasAlpha ? .png : .jpeg
        }
    }

    /// Renders `image`.
    ///
    /// - Throws: ``WebImageError/Code/imageTooLarge`` past the frame or output-pixel
    ///   limits, ``WebImageError/Code/unsupportedFormat`` when no encoder is installed,
    ///   ``WebImageError/Code/encodingFailed``.
    func render(_ image: DecodedImage) throws(WebImageError) -> (Data, ImageFormat) {
        let output = format ?? Self.sourceFamilyFormat(image)
        var source = try frames(of: image, animated: output == .gif)
        source = try resized(source)
        let (pixels, overflow) = source.width.multipliedReportingOverflow(by: source.height * source.frames.count)
        if overflow || pixels > maxOutputPixels {
            throw WebImageError.imageTooLarge("The output exceeds the limit of \(maxOutputPixels) pixels")
        }
        if options.blur > 0, let blurred = source.mapFrames({ $0.blurred(radius: options.blur * options.dpr) }) {
            source = blurred
        }
        let encodeOptions = ImageEncodeOptions(quality: Double(quality) / 100)
        return (try coder.encode(source, as: output, options: encodeOptions), output)
    }

    /// The frames to render: every frame for an animated output (a lazy animation is
    /// decoded here, after its frame count passed the limit), else a still of the first.
    private func frames(of image: DecodedImage, animated: Bool) throws(WebImageError) -> DecodedImage {
        guard animated, image.frameCount > 1 else {
            return DecodedImage(pixels: image.pixels, format: image.format, scale: image.scale, orientation: image.orientation)
        }
        if image.frameCount > maxAnimationFrames {
            throw WebImageError.imageTooLarge("\(image.frameCount) frames exceed the limit of \(maxAnimationFrames)")
        }
        let all = try image.animation?.decodedImage() ?? image
        guard let plain = DecodedImage(frames: all.frames, format: all.format, loopCount: all.loopCount, scale: all.scale) else {
            throw WebImageError.badImageData("The animation has no frames")
        }
        return plain
    }

    /// The resize step: the decode already fitted (or covered) the box, so this mostly
    /// crops; it resamples only what the decoder could not do exactly.
    private func resized(_ image: DecodedImage) throws(WebImageError) -> DecodedImage {
        let box = options.pixelBox
        let w = image.width, h = image.height
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
            (crop.x, crop.y) = origin(of: crop, in: image)
        } else if box.width > 0 || box.height > 0 {
            let sw = box.width > 0 ? Double(box.width) / Double(w) : .infinity
            let sh = box.height > 0 ? Double(box.height) / Double(h) : .infinity
            let scale = min(1, sw, sh)
            out = PixelSize(width: max(1, Int((Double(w) * scale).rounded())), height: max(1, Int((Double(h) * scale).rounded())))
        }
        if crop.width == w && crop.height == h && out.width == w && out.height == h { return image }
        let result = image.mapFrames { frame in
            let kept = crop.width == w && crop.height == h ? frame : frame.cropped(to: crop)
            guard let kept else { return nil }
            return kept.width == out.width && kept.height == out.height ? kept : kept.resampled(width: out.width, height: out.height)
        }
        guard let result else { throw WebImageError.badImageData("The image could not be resized") }
        return result
    }

    /// Where a crop of `crop`'s size sits for the gravity.
    private func origin(of crop: PixelRect, in image: DecodedImage) -> (Int, Int) {
        let dx = image.width - crop.width, dy = image.height - crop.height
        switch options.gravity {
        case .center, .smart: return (dx / 2, dy / 2)
        case .north: return (dx / 2, 0)
        case .south: return (dx / 2, dy)
        case .west: return (0, dy / 2)
        case .east: return (dx, dy / 2)
        }
    }
}
