extension PixelBuffer {
    /// Returns the pixels inside `rect`, clipped to the buffer; `nil` when nothing is left.
    ///
    /// Copies one row at a time. Runs on the caller's thread.
    public func cropped(to rect: PixelRect) -> PixelBuffer? {
        guard let r = rect.clipped(toWidth: width, height: height) else { return nil }
        if r.x == 0, r.y == 0, r.width == width, r.height == height { return self }
        let srcRow = bytesPerRow
        let rowBytes = r.width * 4
        return bytes.withUnsafeBufferPointer { src in
            PixelBuffer(width: r.width, height: r.height) { out in
                guard let s = src.baseAddress, let d = out.baseAddress else { return }
                for row in 0..<r.height {
                    (d + row * rowBytes).update(from: s + (r.y + row) * srcRow + r.x * 4, count: rowBytes)
                }
            }
        }
    }
}
