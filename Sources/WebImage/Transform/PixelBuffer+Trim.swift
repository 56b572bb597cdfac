extension PixelBuffer {
    /// The bounding box of what is not background, as libvips' `find_trim` finds it
    /// (the method of imgproxy's `trim`): transparency is judged on magenta, each band is
    /// median-filtered over 3×3 pixels, and a pixel is foreground when any band differs
    /// from `background` (default: the top-left pixel, on magenta) by more than
    /// `threshold`. `nil` when everything is background. Runs on the caller's thread.
    public func foregroundBounds(threshold: Double, background: RGBA? = nil) -> PixelRect? {
        guard width > 0, height > 0 else { return nil }
        let w = width, h = height
        // Flatten onto magenta for detection, as libvips does for images with alpha.
        let flat = hasAlpha ? flattened(onto: RGBA(r: 255, g: 0, b: 255)) : self
        let reference = background ?? flat[0, 0] ?? RGBA(r: 0, g: 0, b: 0)
        let bg = [Int(reference.r), Int(reference.g), Int(reference.b)]
        let limit = threshold
        var minX = w, minY = h, maxX = -1, maxY = -1
        flat.bytes.withUnsafeBufferPointer { p in
            for y in 0..<h {
                let rows = (max(y - 1, 0) * w, y * w, min(y + 1, h - 1) * w)
                for x in 0..<w {
                    let xs = (max(x - 1, 0), x, min(x + 1, w - 1))
                    var isForeground = false
                    for c in 0..<3 where !isForeground {
                        func v(_ row: Int, _ column: Int) -> Int { Int(p[(row + column) * 4 + c]) }
                        let median = Self.median9(
                            v(rows.0, xs.0), v(rows.0, xs.1), v(rows.0, xs.2), v(rows.1, xs.0), v(rows.1, xs.1),
                            v(rows.1, xs.2), v(rows.2, xs.0), v(rows.2, xs.1), v(rows.2, xs.2))
                        if Double(abs(median - bg[c])) > limit { isForeground = true }
                    }
                    if isForeground {
                        minX = min(minX, x); maxX = max(maxX, x)
                        minY = min(minY, y); maxY = max(maxY, y)
                    }
                }
            }
        }
        guard maxX >= minX, maxY >= minY else { return nil }
        return PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }

    /// The median of nine values by a fixed sorting network (19 compare-exchanges).
    static func median9(_ a0: Int, _ a1: Int, _ a2: Int, _ a3: Int, _ a4: Int, _ a5: Int, _ a6: Int, _ a7: Int, _ a8: Int) -> Int {
        var p = (a0, a1, a2, a3, a4, a5, a6, a7, a8)
        @inline(__always) func sort(_ a: inout Int, _ b: inout Int) { if a > b { swap(&a, &b) } }
        sort(&p.1, &p.2); sort(&p.4, &p.5); sort(&p.7, &p.8)
        sort(&p.0, &p.1); sort(&p.3, &p.4); sort(&p.6, &p.7)
        sort(&p.1, &p.2); sort(&p.4, &p.5); sort(&p.7, &p.8)
        sort(&p.0, &p.3); sort(&p.5, &p.8); sort(&p.4, &p.7)
        sort(&p.3, &p.6); sort(&p.1, &p.4); sort(&p.2, &p.5)
        sort(&p.4, &p.7); sort(&p.4, &p.2); sort(&p.6, &p.4)
        sort(&p.4, &p.2)
        return p.4
    }
}
