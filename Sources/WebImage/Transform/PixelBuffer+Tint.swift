extension PixelBuffer {
    /// Returns the pixels with `color` blended over them by its alpha, keeping each
    /// pixel's own alpha (Core Graphics' "source atop").
    ///
    /// Uses one 256-entry table per channel. Runs on the caller's thread.
    public func tinted(with color: RGBA) -> PixelBuffer {
        if color.a == 0 || bytes.isEmpty { return self }
        let ca = UInt32(color.a)
        func table(_ c: UInt8) -> [UInt8] {
            (0..<256).map { v in UInt8((UInt32(v) * (255 - ca) + UInt32(c) * ca + 127) / 255) }
        }
        let tables = [table(color.r), table(color.g), table(color.b)]
        var result = self
        tables[0].withUnsafeBufferPointer { tr in
            tables[1].withUnsafeBufferPointer { tg in
                tables[2].withUnsafeBufferPointer { tb in
                    result.withUnsafeMutableBytes { p in
                        var i = 0
                        while i < p.count {
                            p[i] = tr[Int(p[i])]
                            p[i + 1] = tg[Int(p[i + 1])]
                            p[i + 2] = tb[Int(p[i + 2])]
                            i += 4
                        }
                    }
                }
            }
        }
        return result
    }
}
