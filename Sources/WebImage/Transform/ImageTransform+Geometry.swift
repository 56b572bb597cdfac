/// The built-ins that change an image's geometry: resize, crop, smart crop, extend,
/// flip, rotate, trim. Sizes and positions are in pixels; each frame is transformed.
extension ImageTransform {
    /// Resizes to `size` pixels (SDWebImage's `SDImageResizingTransformer`), with
    /// ``WebImageCodecs/PixelBuffer/resampled(width:height:filter:)``'s default filter,
    /// ``WebImageCodecs/ResamplingFilter/lanczos3`` (libvips' thumbnail filter, colour
    /// weighted by alpha). `nil` for a non-positive size or one above
    /// ``ImageTransform/maxOutputPixelCount``.
    ///
    /// Key: `ImageResizingTransformer(size:WxH,mode:MODE)`.
    public static func resize(to size: PixelSize, mode: ResizeMode = .fill) -> ImageTransform {
        let key = TransformerKey.make("ImageResizingTransformer", ["size": size.description, "mode": mode.rawValue])
        return ImageTransform(key: key) { image, _ in
            guard image.width > 0, image.height > 0,
                  ImageTransform.isAllowedOutput(width: size.width, height: size.height) else { return nil }
            let w = Double(image.width), h = Double(image.height)
            let tw = Double(size.width), th = Double(size.height)
            switch mode {
            case .fill:
                return image.mapFrames { $0.resampled(width: size.width, height: size.height) }
            case .aspectFit:
                let s = min(tw / w, th / h)
                let outW = min(size.width, max(1, Int((w * s).rounded())))
                let outH = min(size.height, max(1, Int((h * s).rounded())))
                return image.mapFrames { $0.resampled(width: outW, height: outH) }
            case .aspectFill:
                // Crop the source to the target's aspect ratio first, so only the kept
                // centre is resampled.
                let s = max(tw / w, th / h)
                let cropW = min(image.width, max(1, Int((tw / s).rounded())))
                let cropH = min(image.height, max(1, Int((th / s).rounded())))
                let rect = PixelRect(x: (image.width - cropW) / 2, y: (image.height - cropH) / 2, width: cropW, height: cropH)
                return image.mapFrames { $0.cropped(to: rect)?.resampled(width: size.width, height: size.height) }
            }
        }
    }

    /// Crops to `rect`, clipped to the image (SDWebImage's `SDImageCroppingTransformer`);
    /// `nil` when the rectangle is wholly outside it.
    ///
    /// Key: `ImageCroppingTransformer(rect:X,Y,WxH)`.
    public static func crop(to rect: PixelRect) -> ImageTransform {
        frames(TransformerKey.make("ImageCroppingTransformer", ["rect": rect.description])) { $0.cropped(to: rect) }
    }

    /// Crops to `size` around the most salient region (an image proxy's smart gravity,
    /// `g:sm`; ``WebImageCodecs/PixelBuffer/attentionWindow(size:)``), found on the first
    /// frame and cut from every frame. `nil` for an empty size.
    ///
    /// Key: `ImageSmartCroppingTransformer(size:WxH)`.
    public static func smartCrop(to size: PixelSize) -> ImageTransform {
        ImageTransform(key: TransformerKey.make("ImageSmartCroppingTransformer", ["size": size.description])) { image, _ in
            guard size.width > 0, size.height > 0 else { return nil }
            let rect = image.pixels.attentionWindow(size: size)
            return image.mapFrames { $0.cropped(to: rect) }
        }
    }

    /// Grows the canvas by insets of `color` (transparent by default; negative insets
    /// count as 0): padding, and imgproxy's `extend`, `extend_aspect_ratio` and `padding`.
    /// `nil` when the canvas exceeds ``ImageTransform/maxOutputPixelCount``.
    ///
    /// Key: `ImageExtendingTransformer(insets:T.R.B.L,color:rrggbbaa)`.
    public static func extend(
        top: Int, right: Int, bottom: Int, left: Int, color: RGBA = RGBA(r: 0, g: 0, b: 0, a: 0)
    ) -> ImageTransform {
        let (top, right, bottom, left) = (max(0, top), max(0, right), max(0, bottom), max(0, left))
        let key = TransformerKey.make("ImageExtendingTransformer", [
            "insets": "\(top).\(right).\(bottom).\(left)", "color": TransformerKey.color(color),
        ])
        return ImageTransform(key: key) { image, _ in
            let (w, o1) = image.width.addingReportingOverflow(left + right)
            let (h, o2) = image.height.addingReportingOverflow(top + bottom)
            guard !o1, !o2, ImageTransform.isAllowedOutput(width: w, height: h) else { return nil }
            return image.mapFrames { $0.extended(top: top, right: right, bottom: bottom, left: left, color: color) }
        }
    }

    /// Mirrors horizontally, vertically or both (SDWebImage's `SDImageFlippingTransformer`);
    /// with neither, the image is returned unchanged.
    ///
    /// Key: `ImageFlippingTransformer(horizontal:BOOL,vertical:BOOL)`.
    public static func flip(horizontal: Bool, vertical: Bool) -> ImageTransform {
        let key = TransformerKey.make("ImageFlippingTransformer", ["horizontal": "\(horizontal)", "vertical": "\(vertical)"])
        // A flip is an EXIF orientation change; its pixel loops serve.
        let orientation: Orientation? = switch (horizontal, vertical) {
        case (false, false): nil
        case (true, false): .upMirrored
        case (false, true): .downMirrored
        case (true, true): .down
        }
        return ImageTransform(key: key) { image, _ in
            guard let orientation else { return image }
            return image.mapFrames { $0.oriented(orientation) }
        }
    }

    /// Rotates by `angle` degrees counter-clockwise, as SDWebImage does
    /// (`SDImageRotationTransformer`). Area the rotated image does not cover is
    /// transparent; edges are anti-aliased by bilinear sampling; multiples of 90° that
    /// keep the whole image move pixels exactly. With `fitSize` (the default) the canvas
    /// grows to the rotated bounding box, else it keeps its size and the corners are cut.
    /// `nil` for a non-finite angle or a canvas above ``ImageTransform/maxOutputPixelCount``.
    ///
    /// Key: `ImageRotationTransformer(angle:DEGREES,fitSize:BOOL)`.
    public static func rotate(degrees angle: Double, fitSize: Bool = true) -> ImageTransform {
        let key = TransformerKey.make("ImageRotationTransformer", ["angle": TransformerKey.number(angle), "fitSize": "\(fitSize)"])
        return ImageTransform(key: key) { image, _ in
            guard angle.isFinite else { return nil }
            let canvas: PixelSize
            if fitSize {
                guard let size = image.pixels.rotatedBoundingSize(degrees: angle) else { return nil }
                canvas = size
            } else {
                canvas = PixelSize(width: image.width, height: image.height)
            }
            guard ImageTransform.isAllowedOutput(width: canvas.width, height: canvas.height) else { return nil }
            return image.mapFrames { $0.rotated(degrees: angle, canvas: canvas) }
        }
    }

    /// Cuts a border of background colour off (an image proxy's `trim`): the window is
    /// ``WebImageCodecs/PixelBuffer/foregroundBounds(threshold:background:)`` of the first
    /// frame, `color` `nil` taking the top-left pixel's. With `equalHorizontal`
    /// (`equalVertical`) the same amount, the smaller side's, is cut left and right (top
    /// and bottom). An image that is all background is left unchanged; `nil` for a
    /// negative or non-finite threshold.
    ///
    /// Key: `ImageTrimmingTransformer(threshold:T,color:rrggbbaa|auto,equal:H.V)`.
    public static func trim(
        threshold: Double, color: RGBA? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false
    ) -> ImageTransform {
        let key = TransformerKey.make("ImageTrimmingTransformer", [
            "threshold": TransformerKey.number(threshold), "color": color.map(TransformerKey.color) ?? "auto",
            "equal": "\(equalHorizontal).\(equalVertical)",
        ])
        return ImageTransform(key: key) { image, _ in
            guard threshold.isFinite, threshold >= 0 else { return nil }
            guard let bounds = image.pixels.foregroundBounds(threshold: threshold, background: color) else { return image }
            let rect = trimWindow(bounds, width: image.width, height: image.height,
                                  equalHorizontal: equalHorizontal, equalVertical: equalVertical)
            return image.mapFrames { $0.cropped(to: rect) }
        }
    }

    /// The window a trim keeps of a `width`×`height` image whose foreground is `bounds`.
    package static func trimWindow(
        _ bounds: PixelRect, width: Int, height: Int, equalHorizontal: Bool, equalVertical: Bool
    ) -> PixelRect {
        var r = bounds
        if equalHorizontal {
            let right = width - r.x - r.width
            let d = right - r.x
            if d > 0 { r.width += d } else if d < 0 { r.x = right; r.width -= d }
        }
        if equalVertical {
            let bottom = height - r.y - r.height
            let d = bottom - r.y
            if d > 0 { r.height += d } else if d < 0 { r.y = bottom; r.height -= d }
        }
        return r
    }
}
