/// The built-ins that change an image's pixels in place: background, blur, pixelate,
/// round corners, sharpen, tint, watermark. Each frame is transformed; sizes are in pixels.
extension ImageTransform {
    /// Composes over an opaque `color` (white by default; its own alpha is ignored), so
    /// the result has no transparency: an image proxy's `background`, or the flattening
    /// before a format without alpha.
    ///
    /// Key: `ImageBackgroundTransformer(color:rrggbbaa)`.
    public static func background(_ color: RGBA = RGBA(r: 255, g: 255, b: 255)) -> ImageTransform {
        let opaque = RGBA(r: color.r, g: color.g, b: color.b, a: 255)
        return frames(TransformerKey.make("ImageBackgroundTransformer", ["color": TransformerKey.color(opaque)])) {
            $0.flattened(onto: opaque)
        }
    }

    /// A gaussian blur (SDWebImage's `SDImageBlurTransformer`); `radius` is its standard
    /// deviation in pixels, as in CSS `blur()`, clamped to
    /// ``WebImageCodecs/PixelBuffer/maxBlurRadius`` (see
    /// ``WebImageCodecs/PixelBuffer/blurred(radius:)``). Radius 0 returns the image
    /// unchanged; `nil` for a negative or non-finite radius.
    ///
    /// Key: `ImageBlurTransformer(radius:R)`.
    public static func blur(radius: Double) -> ImageTransform {
        ImageTransform(key: TransformerKey.make("ImageBlurTransformer", ["radius": TransformerKey.number(radius)])) { image, _ in
            guard radius.isFinite, radius >= 0 else { return nil }
            return image.mapFrames { $0.blurred(radius: radius) }
        }
    }

    /// Pixelates in square blocks of `size` pixels (an image proxy's `pixelate`); sizes
    /// of 0 and 1 (and negative ones, which count as 0) leave the image unchanged.
    ///
    /// Key: `ImagePixelatingTransformer(size:N)`.
    public static func pixelate(size: Int) -> ImageTransform {
        let size = max(0, size)
        return ImageTransform(key: TransformerKey.make("ImagePixelatingTransformer", ["size": "\(size)"])) { image, _ in
            size <= 1 ? image : image.mapFrames { $0.pixelated(size: size) }
        }
    }

    /// Rounds `corners` (all by default) with `radius` pixels, clamped to half the
    /// shorter side, and draws a border `borderWidth` wide inside the edge along the
    /// rounded shape (SDWebImage's `SDImageRoundCornerTransformer`). Outside the corners
    /// the image becomes transparent; the curve is anti-aliased. `nil` when the radius or
    /// border width is negative or not finite.
    ///
    /// Key: `ImageRoundCornerTransformer(radius:R,corners:C,borderWidth:B,borderColor:rrggbbaa)`,
    /// `C` being `all`, `none`, or the corner names joined by `+` in the order topLeft,
    /// topRight, bottomLeft, bottomRight.
    public static func roundCorners(
        radius: Double, corners: Corners = .all, borderWidth: Double = 0, borderColor: RGBA = RGBA(r: 0, g: 0, b: 0, a: 0)
    ) -> ImageTransform {
        let key = TransformerKey.make("ImageRoundCornerTransformer", [
            "radius": TransformerKey.number(radius), "corners": corners.keyDescription,
            "borderWidth": TransformerKey.number(borderWidth), "borderColor": TransformerKey.color(borderColor),
        ])
        return ImageTransform(key: key) { image, _ in
            guard radius.isFinite, radius >= 0, borderWidth.isFinite, borderWidth >= 0 else { return nil }
            return image.mapFrames {
                $0.roundedCorners(radius: radius, corners: corners, borderWidth: borderWidth, borderColor: borderColor)
            }
        }
    }

    /// An unsharp mask of standard deviation `sigma` pixels (an image proxy's `sharpen`;
    /// ``WebImageCodecs/PixelBuffer/sharpened(sigma:amount:)``). Sigma 0 leaves the image
    /// unchanged; `nil` for a negative or non-finite sigma.
    ///
    /// Key: `ImageSharpeningTransformer(sigma:S)`.
    public static func sharpen(sigma: Double) -> ImageTransform {
        ImageTransform(key: TransformerKey.make("ImageSharpeningTransformer", ["sigma": TransformerKey.number(sigma)])) { image, _ in
            guard sigma.isFinite, sigma >= 0 else { return nil }
            return sigma == 0 ? image : image.mapFrames { $0.sharpened(sigma: sigma) }
        }
    }

    /// Blends `color` over each pixel by the colour's alpha (opaque: a silhouette;
    /// half-transparent: a wash), each pixel keeping its own alpha, so transparent areas
    /// stay transparent (SDWebImage's `SDImageTintTransformer`).
    ///
    /// Key: `ImageTintTransformer(color:rrggbbaa)`.
    public static func tint(_ color: RGBA) -> ImageTransform {
        frames(TransformerKey.make("ImageTintTransformer", ["color": TransformerKey.color(color)])) { $0.tinted(with: color) }
    }

    /// Draws `mark` (already at the size it is drawn) over each frame, its alpha
    /// multiplied by `opacity` (an image proxy's `watermark`): at a position, or tiled as
    /// imgproxy tiles it. The tile is the mark with the spacing added around it (half on
    /// each side, the odd pixel right or below), repeated an odd number of times across
    /// and down so the middle tile sits at the centre, and the frame-sized window in the
    /// middle of that is drawn.
    ///
    /// Key: `ImageWatermarkTransformer(mark:WxH.HASH,opacity:O,at:X.Y|tiled:SX.SY)`, `HASH`
    /// the FNV-1a of the mark's pixels in hex.
    public static func watermark(_ mark: PixelBuffer, opacity: Double, placement: WatermarkPlacement) -> ImageTransform {
        let position = switch placement {
        case .at(let x, let y): "at:\(x).\(y)"
        case .tiled(let sx, let sy): "tiled:\(sx).\(sy)"
        }
        let key = "ImageWatermarkTransformer(mark:\(mark.width)x\(mark.height).\(checksum(mark.bytes))," +
            "opacity:\(TransformerKey.number(opacity)),\(position))"
        return frames(key) { frame in
            switch placement {
            case .at(let x, let y): frame.composited(mark, x: x, y: y, opacity: opacity)
            case .tiled(let sx, let sy): tiled(mark, over: frame, spacingX: max(0, sx), spacingY: max(0, sy), opacity: opacity)
            }
        }
    }

    /// FNV-1a of the watermark's pixels, in hex: the same on every run (a Swift hash is not).
    static func checksum(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    private static func tiled(
        _ mark: PixelBuffer, over frame: PixelBuffer, spacingX: Int, spacingY: Int, opacity: Double
    ) -> PixelBuffer {
        let tileW = mark.width + spacingX, tileH = mark.height + spacingY
        guard tileW > 0, tileH > 0 else { return frame }
        var across = (frame.width + tileW - 1) / tileW, down = (frame.height + tileH - 1) / tileH
        if across % 2 == 0 { across += 1 }
        if down % 2 == 0 { down += 1 }
        // The tiled plane's window at ((tiledW − W)/2, (tiledH − H)/2) is what is drawn.
        let originX = (across * tileW - frame.width) / 2, originY = (down * tileH - frame.height) / 2
        var out = frame
        for row in 0..<down {
            for column in 0..<across {
                let x = column * tileW + spacingX / 2 - originX
                let y = row * tileH + spacingY / 2 - originY
                if x >= frame.width || y >= frame.height || x + mark.width <= 0 || y + mark.height <= 0 { continue }
                out.draw(mark, x: x, y: y, opacity: opacity)
            }
        }
        return out
    }
}
