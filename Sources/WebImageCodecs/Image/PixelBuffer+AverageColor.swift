extension PixelBuffer {
    /// The arithmetic mean of each channel over the pixels, in 8-bit sRGB, rounded half
    /// up (imgproxy Pro's `average`). With `ignoringTransparent` (imgproxy's default),
    /// fully transparent pixels are left out, unless every pixel is. `nil` for an empty
    /// buffer. Runs on the caller's thread.
    public func averageColor(ignoringTransparent: Bool = true) -> RGBA? {
        guard width > 0, height > 0 else { return nil }
        func mean(skipTransparent: Bool) -> RGBA? {
            var sums = [0, 0, 0, 0], n = 0
            bytes.withUnsafeBufferPointer { p in
                var i = 0
                while i + 3 < p.count {
                    if !skipTransparent || p[i + 3] != 0 {
                        sums[0] += Int(p[i])
                        sums[1] += Int(p[i + 1])
                        sums[2] += Int(p[i + 2])
                        sums[3] += Int(p[i + 3])
                        n += 1
                    }
                    i += 4
                }
            }
            guard n > 0 else { return nil }
            let c = sums.map { UInt8(min(255, (2 * $0 + n) / (2 * n))) }
            return RGBA(r: c[0], g: c[1], b: c[2], a: c[3])
        }
        return (ignoringTransparent ? mean(skipTransparent: true) : nil) ?? mean(skipTransparent: false)
    }
}
