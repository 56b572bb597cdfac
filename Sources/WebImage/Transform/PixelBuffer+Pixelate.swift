extension PixelBuffer {
    /// Returns the pixels pixelated in `size`×`size` blocks: each block (the last row and
    /// column of blocks may be smaller) becomes the alpha-weighted mean of its pixels.
    /// A size of 1 or less returns the pixels unchanged. Runs on the caller's thread.
    public func pixelated(size: Int) -> PixelBuffer {
        guard size > 1, width > 0, height > 0 else { return self }
        let block = min(size, max(width, height))
        var out = self
        let w = width, h = height
        out.withUnsafeMutableBytes { p in
            for by in stride(from: 0, to: h, by: block) {
                for bx in stride(from: 0, to: w, by: block) {
                    let x1 = min(bx + block, w), y1 = min(by + block, h)
                    var r = 0, g = 0, b = 0, a = 0
                    for y in by..<y1 {
                        var i = (y * w + bx) * 4
                        for _ in bx..<x1 {
                            let alpha = Int(p[i + 3])
                            r += Int(p[i]) * alpha
                            g += Int(p[i + 1]) * alpha
                            b += Int(p[i + 2]) * alpha
                            a += alpha
                            i += 4
                        }
                    }
                    let count = (x1 - bx) * (y1 - by)
                    let mean = a > 0
                        ? RGBA(r: UInt8((r + a / 2) / a), g: UInt8((g + a / 2) / a), b: UInt8((b + a / 2) / a),
                               a: UInt8((a + count / 2) / count))
                        : RGBA(r: 0, g: 0, b: 0, a: 0)
                    for y in by..<y1 {
                        var i = (y * w + bx) * 4
                        for _ in bx..<x1 {
                            p[i] = mean.r
                            p[i + 1] = mean.g
                            p[i + 2] = mean.b
                            p[i + 3] = mean.a
                            i += 4
                        }
                    }
                }
            }
        }
        return out
    }
}
