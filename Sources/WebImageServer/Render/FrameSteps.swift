import Foundation
import WebImage
import WebImageCodecs

/// The geometry and effects of one render, worked out once and applied to each frame:
/// imgproxy's pipeline after decoding, as WebImage transformers and pixel operations.
struct FrameSteps: Sendable {
    let options: ProcessingOptions
    let plan: ProcessingPlan
    /// The user's rotation and flips as one orientation change (clockwise degrees first).
    let rotation: Orientation
    let flips: (horizontal: Bool, vertical: Bool)
    /// The trimmed window of the (oriented) first frame.
    let trimRect: PixelRect?
    /// The `crop` option's window on the oriented frame, in decoded pixels.
    let cropRect: PixelRect?
    /// The window cut from the scaled image.
    let resultRect: PixelRect?
    let smartCrop: PixelSize?
    let extendInsets: (top: Int, right: Int, bottom: Int, left: Int)?
    let aspectInsets: (top: Int, right: Int, bottom: Int, left: Int)?
    let flattenColor: RGBA?
    let watermark: ImageTransform?
    /// The size every processed frame has.
    let outputSize: PixelSize

    /// Plans the steps for frames of `frameSize` (as decoded: EXIF applied when the server
    /// auto-rotates, already scaled when the decoder shrank them).
    init(
        renderer: ImageRenderer, frameSize: PixelSize, plannedSource: PixelSize?, flatten: Bool, trims: Bool,
        firstFrame: PixelBuffer? = nil
    ) throws(WebImageError) {
        let o = renderer.options
        options = o
        rotation = switch o.rotate { case 90: .right; case 180: .down; case 270: .left; default: .up }
        flips = (o.flipHorizontal, o.flipVertical)
        let turned = rotation.swapsDimensions ? PixelSize(width: frameSize.height, height: frameSize.width) : frameSize
        // Trim on the oriented first frame; the plan then starts from what is left.
        var trim: PixelRect?
        if trims, let trimOptions = o.trim, let firstFrame {
            let oriented = FrameSteps.orient(firstFrame, rotation: rotation, flips: (o.flipHorizontal, o.flipVertical))
            if let bounds = oriented.foregroundBounds(threshold: trimOptions.threshold, background: trimOptions.color) {
                trim = ImageTransform.trimWindow(
                    bounds, width: oriented.width, height: oriented.height,
                    equalHorizontal: trimOptions.equalHorizontal, equalVertical: trimOptions.equalVertical)
            }
        }
        trimRect = trim
        let available = trim.map { PixelSize(width: $0.width, height: $0.height) } ?? turned
        // Geometry in the source's full-size terms when the header told the decoder to
        // shrink, else in the decoded frame's.
        let sourceSize = trim == nil ? plannedSource ?? available : available
        plan = ProcessingPlan(source: sourceSize, options: o, maxResultDimension: renderer.maxResultDimension)
        // The decoded frame may be the source scaled already: map the crop onto it.
        let fx = Double(available.width) / Double(sourceSize.width), fy = Double(available.height) / Double(sourceSize.height)
        cropRect = plan.crop.map { c in Self.scaled(c, fx, fy) }
        let scaled = plan.scaledSize
        let cropped = plan.croppedSize
        if cropped != scaled {
            if o.gravity.kind == .smart {
                smartCrop = cropped
                resultRect = nil
            } else {
                let (x, y) = ProcessingPlan.position(outer: scaled, inner: cropped, gravity: o.gravity, dpr: plan.dpr, allowOverflow: false)
                resultRect = PixelRect(x: x, y: y, width: cropped.width, height: cropped.height)
                smartCrop = nil
            }
        } else {
            resultRect = nil
            smartCrop = nil
        }
        var size = cropped
        extendInsets = o.extend.isEnabled ? FrameSteps.insets(
            image: &size, canvas: PixelSize(width: max(size.width, plan.targetSize.width), height: max(size.height, plan.targetSize.height)),
            gravity: o.extend.gravity, dpr: plan.dpr) : nil
        aspectInsets = o.extendAspectRatio.isEnabled && plan.aspectCanvas.width > 0 ? FrameSteps.insets(
            image: &size, canvas: PixelSize(width: max(size.width, plan.aspectCanvas.width), height: max(size.height, plan.aspectCanvas.height)),
            gravity: o.extendAspectRatio.gravity, dpr: plan.dpr) : nil
        size.width += plan.padding.left + plan.padding.right
        size.height += plan.padding.top + plan.padding.bottom
        outputSize = size
        flattenColor = flatten ? (o.background ?? RGBA(r: 255, g: 255, b: 255)) : nil
        watermark = FrameSteps.watermark(renderer, plan: plan, on: size)
    }

    /// `rect` scaled by `fx`, `fy`, each side at least 1.
    private static func scaled(_ rect: PixelRect, _ fx: Double, _ fy: Double) -> PixelRect {
        let x = ProcessingPlan.round(Double(rect.x) * fx), y = ProcessingPlan.round(Double(rect.y) * fy)
        let width = max(1, ProcessingPlan.round(Double(rect.width) * fx))
        let height = max(1, ProcessingPlan.round(Double(rect.height) * fy))
        return PixelRect(x: x, y: y, width: width, height: height)
    }

    /// Insets that put an image of `image` size into `canvas` at the gravity; `image`
    /// becomes the canvas. `nil` when the canvas is not larger.
    private static func insets(
        image: inout PixelSize, canvas: PixelSize, gravity: Gravity, dpr: Double
    ) -> (top: Int, right: Int, bottom: Int, left: Int)? {
        guard canvas.width > image.width || canvas.height > image.height else { return nil }
        let (x, y) = ProcessingPlan.position(outer: canvas, inner: image, gravity: gravity, dpr: dpr, allowOverflow: false)
        let result = (y, canvas.width - image.width - x, canvas.height - image.height - y, x)
        image = canvas
        return result
    }

    /// The watermark scaled and placed for a result of `size` (imgproxy's watermark.go).
    private static func watermark(_ renderer: ImageRenderer, plan: ProcessingPlan, on size: PixelSize) -> ImageTransform? {
        guard let w = renderer.options.watermark, w.opacity > 0, let image = renderer.watermark else { return nil }
        var mark = image
        if w.scale > 0 {
            let box = (max(1, ProcessingPlan.roundEven(Double(size.width) * w.scale)),
                       max(1, ProcessingPlan.roundEven(Double(size.height) * w.scale)))
            let s = min(Double(box.0) / Double(mark.width), Double(box.1) / Double(mark.height))
            mark = mark.resampled(width: max(1, ProcessingPlan.round(Double(mark.width) * s)),
                                  height: max(1, ProcessingPlan.round(Double(mark.height) * s)))
        }
        let opacity = w.opacity * renderer.output.watermarkOpacity
        if w.position == .replicate {
            let padX = abs(w.x) >= 1 ? ProcessingPlan.roundEven(w.x * plan.dpr) : ProcessingPlan.roundEven(Double(size.width) * w.x)
            let padY = abs(w.y) >= 1 ? ProcessingPlan.roundEven(w.y * plan.dpr) : ProcessingPlan.roundEven(Double(size.height) * w.y)
            return .watermark(mark, opacity: opacity, placement: .tiled(spacingX: padX, spacingY: padY))
        }
        let (x, y) = ProcessingPlan.position(
            outer: size, inner: PixelSize(width: mark.width, height: mark.height),
            gravity: Gravity(kind: w.position, x: w.x, y: w.y), dpr: plan.dpr, allowOverflow: true)
        return .watermark(mark, opacity: opacity, placement: .at(x: x, y: y))
    }

    static func orient(_ pixels: PixelBuffer, rotation: Orientation, flips: (horizontal: Bool, vertical: Bool)) -> PixelBuffer {
        var result = pixels.oriented(rotation)
        if flips.horizontal { result = result.oriented(.upMirrored) }
        if flips.vertical { result = result.oriented(.downMirrored) }
        return result
    }

    /// Applies every step to one frame.
    func apply(to frame: PixelBuffer) throws(WebImageError) -> PixelBuffer {
        var pixels = Self.orient(frame, rotation: rotation, flips: flips)
        if let trimRect, let trimmed = pixels.cropped(to: trimRect) { pixels = trimmed }
        if let cropRect, let cropped = pixels.cropped(to: cropRect) { pixels = cropped }
        if pixels.width != plan.scaledSize.width || pixels.height != plan.scaledSize.height {
            pixels = pixels.resampled(width: plan.scaledSize.width, height: plan.scaledSize.height)
        }
        if let smartCrop {
            pixels = pixels.cropped(to: pixels.attentionWindow(size: smartCrop)) ?? pixels
        } else if let resultRect, let cropped = pixels.cropped(to: resultRect) {
            pixels = cropped
        }
        if options.blur > 0 { pixels = pixels.blurred(radius: options.blur) }
        if options.sharpen > 0 { pixels = pixels.sharpened(sigma: options.sharpen) }
        if options.pixelate > 1 { pixels = pixels.pixelated(size: options.pixelate) }
        if let i = extendInsets { pixels = pixels.extended(top: i.top, right: i.right, bottom: i.bottom, left: i.left) }
        if let i = aspectInsets { pixels = pixels.extended(top: i.top, right: i.right, bottom: i.bottom, left: i.left) }
        let p = plan.padding
        pixels = pixels.extended(top: p.top, right: p.right, bottom: p.bottom, left: p.left)
        if let flattenColor { pixels = pixels.flattened(onto: flattenColor) }
        if let watermark, let marked = watermark.transform(DecodedImage(pixels: pixels, format: .undefined), forKey: "")?.pixels {
            pixels = marked
        }
        guard pixels.width == outputSize.width, pixels.height == outputSize.height else {
            throw .badImageData("A frame has another size than the first (\(pixels.width)x\(pixels.height))")
        }
        return pixels
    }
}
