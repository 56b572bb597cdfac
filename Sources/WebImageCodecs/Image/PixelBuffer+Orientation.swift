extension PixelBuffer {
    /// Returns the pixels turned so that an image stored with `orientation` displays upright.
    ///
    /// For orientations 5–8 the result's width and height are swapped.
    public func oriented(_ orientation: Orientation) -> PixelBuffer {
        if orientation == .up || bytes.isEmpty { return self }
        let w = width, h = height
        let outW = orientation.swapsDimensions ? h : w
        let outH = orientation.swapsDimensions ? w : h
        return bytes.withUnsafeBytes { raw in
            let src = raw.bindMemory(to: UInt32.self)
            return PixelBuffer(width: outW, height: outH) { out in
                let dst = UnsafeMutableRawBufferPointer(out).bindMemory(to: UInt32.self)
                // Each case maps a display pixel (dx, dy) back to its stored pixel.
                for dy in 0..<outH {
                    let row = dy * outW
                    switch orientation {
                    case .up:
                        for dx in 0..<outW { dst[row + dx] = src[dy * w + dx] }
                    case .upMirrored:
                        for dx in 0..<outW { dst[row + dx] = src[dy * w + (w - 1 - dx)] }
                    case .down:
                        for dx in 0..<outW { dst[row + dx] = src[(h - 1 - dy) * w + (w - 1 - dx)] }
                    case .downMirrored:
                        for dx in 0..<outW { dst[row + dx] = src[(h - 1 - dy) * w + dx] }
                    case .leftMirrored:
                        for dx in 0..<outW { dst[row + dx] = src[dx * w + dy] }
                    case .right:
                        for dx in 0..<outW { dst[row + dx] = src[(h - 1 - dx) * w + dy] }
                    case .rightMirrored:
                        for dx in 0..<outW { dst[row + dx] = src[(h - 1 - dx) * w + (w - 1 - dy)] }
                    case .left:
                        for dx in 0..<outW { dst[row + dx] = src[dx * w + (w - 1 - dy)] }
                    }
                }
            }
        }
    }
}
