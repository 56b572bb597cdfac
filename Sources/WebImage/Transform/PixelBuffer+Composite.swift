extension PixelBuffer {
    /// Returns these pixels with `overlay` drawn over them at (`x`, `y`) (which may lie
    /// partly outside) with the "over" operator, the overlay's alpha multiplied by
    /// `opacity` (0…1). Runs on the caller's thread.
    public func composited(_ overlay: PixelBuffer, x: Int, y: Int, opacity: Double = 1) -> PixelBuffer {
        var out = self
        out.draw(overlay, x: x, y: y, opacity: opacity)
        return out
    }

    /// Draws `overlay` over these pixels in place; see ``composited(_:x:y:opacity:)``.
    public mutating func draw(_ overlay: PixelBuffer, x: Int, y: Int, opacity: Double = 1) {
        let op = Int((min(max(opacity.isNaN ? 0 : opacity, 0), 1) * 255).rounded())
        guard op > 0, overlay.width > 0, overlay.height > 0 else { return }
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(width, x + overlay.width), y1 = min(height, y + overlay.height)
        guard x0 < x1, y0 < y1 else { return }
        let w = width, ow = overlay.width
        overlay.bytes.withUnsafeBufferPointer { src in
            withUnsafeMutableBytes { dst in
                for yy in y0..<y1 {
                    var d = (yy * w + x0) * 4
                    var s = ((yy - y) * ow + (x0 - x)) * 4
                    for _ in x0..<x1 {
                        // Source alpha scaled by the opacity, then "over" in straight alpha.
                        let sa = (Int(src[s + 3]) * op + 127) / 255
                        if sa > 0 {
                            let da = Int(dst[d + 3])
                            let outA = sa * 255 + da * (255 - sa)  // × 255
                            for c in 0..<3 {
                                let num = Int(src[s + c]) * sa * 255 + Int(dst[d + c]) * da * (255 - sa)
                                dst[d + c] = UInt8(outA > 0 ? (num + outA / 2) / outA : 0)
                            }
                            dst[d + 3] = UInt8((outA + 127) / 255)
                        }
                        d += 4
                        s += 4
                    }
                }
            }
        }
    }
}
