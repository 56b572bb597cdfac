import Foundation
import WebImage
import WebImageCodecs

/// The geometry of one result, computed as imgproxy computes it (processing/prepare.go,
/// docs/usage/processing.mdx) from the source's size in its final orientation and the
/// options: scales, the `crop` window, the scaled size, the crop to the result, the
/// extended canvases and the padding. Every rounding follows imgproxy's (half away from
/// zero for sizes, half to even for offsets), so output sizes are imgproxy's.
///
/// Pure arithmetic, no pixels: the proxy makes one from the header before decoding
/// (to plan the decode and reserve memory) and again from the decoded or trimmed size.
struct ProcessingPlan: Sendable {
    /// The source (or trimmed) size in the final orientation (EXIF and `rotate` applied).
    var sourceSize: PixelSize
    /// The `crop` option's window on the source, `nil` for none.
    var crop: PixelRect?
    /// Size of the region that is scaled (the crop, else the source).
    var baseSize: PixelSize
    var scaleX: Double
    var scaleY: Double
    /// The effective device pixel ratio (capped so it never upscales without `enlarge`).
    var dpr: Double
    /// The base scaled: what the resampler produces.
    var scaledSize: PixelSize
    /// The requested box times dpr and zoom (0: free side).
    var targetSize: PixelSize
    /// The window cut from the scaled image (0: free side).
    var resultCrop: PixelSize
    /// `extend_aspect_ratio`'s canvas (0 × 0: none).
    var aspectCanvas: PixelSize
    /// Padding in output pixels.
    var padding: (top: Int, right: Int, bottom: Int, left: Int)

    // MARK: imgproxy's rounding helpers

    /// Half away from zero, saturating (URL values can make any product: zoom × dpr × width).
    static func round(_ x: Double) -> Int { saturated(x.rounded(.toNearestOrAwayFromZero)) }
    /// Half to even, saturating.
    static func roundEven(_ x: Double) -> Int { saturated(x.rounded(.toNearestOrEven)) }

    /// `x` as an `Int` within ±2⁴⁰ (far past any image side, far from overflow); NaN is 0.
    static func saturated(_ x: Double) -> Int {
        guard !x.isNaN else { return 0 }
        return Int(min(max(x, -1_099_511_627_776), 1_099_511_627_776))
    }
    static func scale(_ a: Int, _ s: Double) -> Int { a == 0 ? 0 : round(Double(a) * s) }
    static func scaleEven(_ a: Int, _ s: Double) -> Int { a == 0 ? 0 : roundEven(Double(a) * s) }
    static func minNonZero(_ a: Int, _ b: Int) -> Int { a == 0 ? b : b == 0 ? a : min(a, b) }

    /// `size` after the `rotate` option (a multiple of 90 degrees): a quarter turn swaps its sides.
    static func rotated(_ size: PixelSize, by rotate: Int) -> PixelSize {
        rotate % 180 == 90 ? PixelSize(width: size.height, height: size.width) : size
    }

    /// Plans `options` for a source of `source` (final orientation) with the server's
    /// result-dimension limit `maxResultDimension` (0: none; the URL's `mrd` wins).
    init(source: PixelSize, options o: ProcessingOptions, maxResultDimension: Int, isVector: Bool = false) {
        sourceSize = source
        let srcW = max(1, source.width), srcH = max(1, source.height)
        var cropW = 0, cropH = 0
        if let c = o.crop {
            cropW = Self.cropSide(srcW, c.width)
            cropH = Self.cropSide(srcH, c.height)
        }
        let baseW = Self.minNonZero(cropW, srcW), baseH = Self.minNonZero(cropH, srcH)
        baseSize = PixelSize(width: baseW, height: baseH)
        crop = nil
        if cropW != 0 || cropH != 0, baseW < srcW || baseH < srcH, let c = o.crop {
            let gravity = c.gravity ?? o.gravity
            let (left, top) = Self.position(
                outer: source, inner: baseSize, gravity: gravity, dpr: 1, allowOverflow: false)
            crop = PixelRect(x: left, y: top, width: baseW, height: baseH)
        }
        scaleX = 1
        scaleY = 1
        dpr = o.dpr
        scaledSize = baseSize
        targetSize = PixelSize(width: 0, height: 0)
        resultCrop = targetSize
        aspectCanvas = targetSize
        padding = (0, 0, 0, 0)
        calcScale(o, isVector: isVector)
        calcSizes(o)
        limitScale(o, limit: o.maxResultDimension ?? maxResultDimension)
        padding = (Self.scaleEven(o.padding.top, dpr), Self.scaleEven(o.padding.right, dpr),
                   Self.scaleEven(o.padding.bottom, dpr), Self.scaleEven(o.padding.left, dpr))
    }

    /// A crop side: 0 is the whole side, ≥ 1 pixels (truncated), below 1 a fraction.
    static func cropSide(_ side: Int, _ value: Double) -> Int {
        if value == 0 { return 0 }
        if value >= 1 { return Int(value) }
        return max(1, round(Double(side) * value))
    }

    /// imgproxy's calcScale: the shrink of each axis, zoom, the no-upscale rule with the
    /// dpr compensation, min-width/min-height, then dpr.
    private mutating func calcScale(_ o: ProcessingOptions, isVector: Bool) {
        let srcW = Double(baseSize.width), srcH = Double(baseSize.height)
        let dstW = o.width != 0 ? Double(o.width) : srcW
        let dstH = o.height != 0 ? Double(o.height) : srcH
        var wShrink = dstW != srcW ? srcW / dstW : 1
        var hShrink = dstH != srcH ? srcH / dstH : 1
        if wShrink != 1 || hShrink != 1 {
            var type = o.resizingType
            if type == .auto {
                let sameOrientation = (srcW - srcH >= 0 && dstW - dstH >= 0) || (srcW - srcH < 0 && dstW - dstH < 0)
                type = sameOrientation ? .fill : .fit
            }
            if o.width == 0 && type != .force {
                wShrink = hShrink
            } else if o.height == 0 && type != .force {
                hShrink = wShrink
            } else if type == .fit {
                wShrink = max(wShrink, hShrink)
                hShrink = wShrink
            } else if type == .fill || type == .fillDown {
                wShrink = min(wShrink, hShrink)
                hShrink = wShrink
            }
        }
        wShrink /= o.zoomX
        hShrink /= o.zoomY
        var dpr = o.dpr
        if !o.enlarge && !isVector {
            let m = min(wShrink, hShrink)
            if m < 1 {
                wShrink /= m
                hShrink /= m
                if !o.extend.isEnabled { dpr /= m }
            }
            dpr = min(dpr, min(wShrink, hShrink))
        }
        if o.minWidth > 0 {
            let s = srcW / Double(o.minWidth)
            if s < wShrink {
                hShrink /= wShrink / s
                wShrink = s
            }
        }
        if o.minHeight > 0 {
            let s = srcH / Double(o.minHeight)
            if s < hShrink {
                wShrink /= hShrink / s
                hShrink = s
            }
        }
        wShrink /= dpr
        hShrink /= dpr
        wShrink = min(wShrink, srcW)
        hShrink = min(hShrink, srcH)
        scaleX = 1 / wShrink
        scaleY = 1 / hShrink
        self.dpr = dpr
    }

    /// imgproxy's calcSizes: target, scaled and result-crop sizes, and the aspect-ratio canvas.
    private mutating func calcSizes(_ o: ProcessingOptions) {
        targetSize = PixelSize(width: Self.scale(o.width, dpr * o.zoomX), height: Self.scale(o.height, dpr * o.zoomY))
        scaledSize = PixelSize(width: Self.scale(baseSize.width, scaleX), height: Self.scale(baseSize.height, scaleY))
        resultCrop = targetSize
        if o.resizingType == .fillDown && !o.enlarge {
            let dW = scaledSize.width > 0 ? Double(targetSize.width) / Double(scaledSize.width) : 0
            let dH = scaledSize.height > 0 ? Double(targetSize.height) / Double(scaledSize.height) : 0
            if dW > dH && dW > 1 {
                resultCrop = PixelSize(
                    width: scaledSize.width, height: Self.scale(scaledSize.width, Double(targetSize.height) / Double(targetSize.width)))
            } else if dH > dW && dH > 1 {
                resultCrop = PixelSize(
                    width: Self.scale(scaledSize.height, Double(targetSize.width) / Double(targetSize.height)), height: scaledSize.height)
            }
        }
        aspectCanvas = PixelSize(width: 0, height: 0)
        if o.extendAspectRatio.isEnabled && targetSize.width > 0 && targetSize.height > 0 {
            let outW = Self.minNonZero(scaledSize.width, resultCrop.width)
            let outH = Self.minNonZero(scaledSize.height, resultCrop.height)
            let dW = Double(targetSize.width) / Double(outW), dH = Double(targetSize.height) / Double(outH)
            if dH > dW {
                aspectCanvas = PixelSize(width: outW, height: Self.scale(outW, Double(targetSize.height) / Double(targetSize.width)))
            } else if dW > dH {
                aspectCanvas = PixelSize(width: Self.scale(outH, Double(targetSize.width) / Double(targetSize.height)), height: outH)
            }
        }
    }

    /// imgproxy's limitScale: shrinks everything so the result's longest side is at most `limit`.
    private mutating func limitScale(_ o: ProcessingOptions, limit: Int) {
        guard limit > 0 else { return }
        var outW = Self.minNonZero(scaledSize.width, resultCrop.width)
        var outH = Self.minNonZero(scaledSize.height, resultCrop.height)
        if o.extend.isEnabled {
            outW = max(outW, targetSize.width)
            outH = max(outH, targetSize.height)
        } else if o.extendAspectRatio.isEnabled {
            outW = max(outW, aspectCanvas.width)
            outH = max(outH, aspectCanvas.height)
        }
        outW += Self.scaleEven(o.padding.left, dpr) + Self.scaleEven(o.padding.right, dpr)
        outH += Self.scaleEven(o.padding.top, dpr) + Self.scaleEven(o.padding.bottom, dpr)
        guard outW > limit || outH > limit else { return }
        let k = Double(limit) / Double(max(outW, outH))
        scaleX = max(scaleX * k, 1 / Double(baseSize.width))
        scaleY = max(scaleY * k, 1 / Double(baseSize.height))
        dpr *= k
        calcSizes(o)
    }

    // MARK: Positions

    /// Where an `inner` box sits in an `outer` one for `gravity` (imgproxy's calcPosition):
    /// offsets ≥ 1 in absolute pixels times `dpr`, below 1 fractions of the outer side;
    /// clamped inside (or, for watermarks, overlapping by at least a pixel).
    static func position(
        outer: PixelSize, inner: PixelSize, gravity: Gravity, dpr: Double, allowOverflow: Bool
    ) -> (x: Int, y: Int) {
        let W = outer.width, H = outer.height, w = inner.width, h = inner.height
        var left: Int, top: Int
        if gravity.kind == .focusPoint {
            left = roundEven(Double(W) * gravity.x) - w / 2
            top = roundEven(Double(H) * gravity.y) - h / 2
        } else {
            let offX = abs(gravity.x) >= 1 ? roundEven(gravity.x * dpr) : roundEven(Double(W) * gravity.x)
            let offY = abs(gravity.y) >= 1 ? roundEven(gravity.y * dpr) : roundEven(Double(H) * gravity.y)
            left = roundEven(Double(W - w + 1) / 2) + offX
            top = roundEven(Double(H - h + 1) / 2) + offY
            switch gravity.kind {
            case .north: top = offY
            case .northEast: top = offY; left = W - w - offX
            case .northWest: top = offY; left = offX
            case .south: top = H - h - offY
            case .southEast: top = H - h - offY; left = W - w - offX
            case .southWest: top = H - h - offY; left = offX
            case .east: left = W - w - offX
            case .west: left = offX
            default: break
            }
        }
        if allowOverflow {
            left = min(max(left, -w + 1), W - 1)
            top = min(max(top, -h + 1), H - 1)
        } else {
            left = min(max(left, 0), max(0, W - w))
            top = min(max(top, 0), max(0, H - h))
        }
        return (left, top)
    }

    // MARK: The result

    /// The image size after the crop to the result (before extending and padding).
    var croppedSize: PixelSize {
        let w = Self.minNonZero(resultCrop.width, scaledSize.width), h = Self.minNonZero(resultCrop.height, scaledSize.height)
        return PixelSize(width: min(w, scaledSize.width), height: min(h, scaledSize.height))
    }

    /// The output's size: the cropped size, grown by `extend` to the target, by
    /// `extend_aspect_ratio` to its canvas, then by the padding.
    func outputSize(_ o: ProcessingOptions) -> PixelSize {
        var size = extendedSize(o)
        size.width += padding.left + padding.right
        size.height += padding.top + padding.bottom
        return size
    }

    /// The size after extending (before padding).
    func extendedSize(_ o: ProcessingOptions) -> PixelSize {
        var size = croppedSize
        if o.extend.isEnabled {
            size = PixelSize(width: max(size.width, targetSize.width), height: max(size.height, targetSize.height))
        }
        if o.extendAspectRatio.isEnabled, aspectCanvas.width > 0, aspectCanvas.height > 0 {
            size = PixelSize(width: max(size.width, aspectCanvas.width), height: max(size.height, aspectCanvas.height))
        }
        return size
    }
}
