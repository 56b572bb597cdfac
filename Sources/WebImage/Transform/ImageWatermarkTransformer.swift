/// Draws a watermark over every frame (an image proxy's `watermark`): at a position, or
/// tiled over the whole frame, its alpha multiplied by `opacity`.
///
/// Tiling follows imgproxy's: the tile is the watermark with `spacing` added around it
/// (half on each side, the odd pixel right or below), repeated an odd number of times
/// across and down so that the middle tile sits at the centre, and the frame-sized
/// window in the middle of that is drawn.
///
/// Key: `ImageWatermarkTransformer(mark:WxH.HASH,opacity:O,at:X.Y|tiled:SX.SY)`.
public struct ImageWatermarkTransformer: ImageTransformer {
    public enum Placement: Sendable, Hashable {
        /// The watermark's top-left corner at these pixel coordinates (may be outside).
        case at(x: Int, y: Int)
        /// Tiled, with this much space between tiles.
        case tiled(spacingX: Int, spacingY: Int)
    }

    /// The watermark, already at the size it is drawn.
    public var mark: PixelBuffer
    public var opacity: Double
    public var placement: Placement

    public init(mark: PixelBuffer, opacity: Double, placement: Placement) {
        self.mark = mark
        self.opacity = opacity
        self.placement = placement
    }

    public var transformerKey: String {
        let where_: String
        switch placement {
        case .at(let x, let y): where_ = "at:\(x).\(y)"
        case .tiled(let sx, let sy): where_ = "tiled:\(sx).\(sy)"
        }
        return "ImageWatermarkTransformer(mark:\(mark.width)x\(mark.height).\(Self.checksum(mark.bytes)),opacity:\(TransformerKey.number(opacity)),\(where_))"
    }

    /// FNV-1a of the watermark's pixels, in hex: the same on every run (a Swift hash is not).
    static func checksum(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        image.mapFrames { frame in
            switch placement {
            case .at(let x, let y):
                return frame.composited(mark, x: x, y: y, opacity: opacity)
            case .tiled(let sx, let sy):
                return tiled(frame, spacingX: max(0, sx), spacingY: max(0, sy))
            }
        }
    }

    private func tiled(_ frame: PixelBuffer, spacingX: Int, spacingY: Int) -> PixelBuffer {
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
