extension PixelBuffer {
    /// Returns the pixels on a larger canvas: `top`, `right`, `bottom` and `left` pixels
    /// of `color` around them (transparent black by default). Negative insets count as 0.
    /// Copies one row at a time. Runs on the caller's thread.
    public func extended(top: Int, right: Int, bottom: Int, left: Int, color: RGBA = RGBA(r: 0, g: 0, b: 0, a: 0)) -> PixelBuffer {
        let t = max(0, top), r = max(0, right), b = max(0, bottom), l = max(0, left)
        if t == 0 && r == 0 && b == 0 && l == 0 { return self }
        let outW = width + l + r, outH = height + t + b
        let rowBytes = bytesPerRow
        return bytes.withUnsafeBufferPointer { src in
            PixelBuffer(width: outW, height: outH) { out in
                PixelBuffer.fill(out, with: color)
                guard let s = src.baseAddress, let d = out.baseAddress, rowBytes > 0 else { return }
                for y in 0..<height {
                    (d + ((t + y) * outW + l) * 4).update(from: s + y * rowBytes, count: rowBytes)
                }
            }
        }
    }

    /// Fills `bytes` (whole pixels) with `color`.
    static func fill(_ bytes: UnsafeMutableBufferPointer<UInt8>, with color: RGBA) {
        if color.r == 0 && color.g == 0 && color.b == 0 && color.a == 0 {
            bytes.initialize(repeating: 0)
            return
        }
        var i = 0
        while i + 3 < bytes.count {
            bytes[i] = color.r
            bytes[i + 1] = color.g
            bytes[i + 2] = color.b
            bytes[i + 3] = color.a
            i += 4
        }
    }

    /// Returns the pixels composed over an opaque `color` ("flattened"): every pixel
    /// becomes `c·a + color·(1 − a)` with alpha 255. Already opaque buffers are returned
    /// as they are. Runs on the caller's thread.
    public func flattened(onto color: RGBA) -> PixelBuffer {
        guard hasAlpha else { return self }
        var out = self
        out.withUnsafeMutableBytes { p in
            let br = Int(color.r), bg = Int(color.g), bb = Int(color.b)
            var i = 0
            while i + 3 < p.count {
                let a = Int(p[i + 3]), inverse = 255 - a
                p[i] = UInt8((Int(p[i]) * a + br * inverse + 127) / 255)
                p[i + 1] = UInt8((Int(p[i + 1]) * a + bg * inverse + 127) / 255)
                p[i + 2] = UInt8((Int(p[i + 2]) * a + bb * inverse + 127) / 255)
                p[i + 3] = 255
                i += 4
            }
        }
        return out
    }
}
