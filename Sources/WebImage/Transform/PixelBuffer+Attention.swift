extension PixelBuffer {
    /// The `size` window of these pixels that draws the eye most, in the manner of
    /// libvips' `smartcrop` "attention" strategy (the one imgproxy's `g:sm` uses):
    /// each pixel scores its edge strength (the luma gradient), plus extra for skin tones
    /// and for strongly saturated colour, times its opacity; the window with the highest
    /// total wins, searched on a copy at most 256 pixels on a side with a summed-area
    /// table. Runs on the caller's thread.
    public func attentionWindow(size: PixelSize) -> PixelRect {
        let cw = min(max(1, size.width), width), ch = min(max(1, size.height), height)
        guard width > 0, height > 0, cw < width || ch < height else { return PixelRect(x: 0, y: 0, width: cw, height: ch) }
        // Work small: the score map of a 12 MP photo needs no more than this.
        let factor = max(1.0, Double(max(width, height)) / 256)
        let small = factor > 1 ? resampled(width: max(1, Int(Double(width) / factor)), height: max(1, Int(Double(height) / factor))) : self
        let w = small.width, h = small.height
        var table = [Double](repeating: 0, count: (w + 1) * (h + 1))
        small.bytes.withUnsafeBufferPointer { p in
            func luma(_ x: Int, _ y: Int) -> Double {
                let i = (min(max(y, 0), h - 1) * w + min(max(x, 0), w - 1)) * 4
                return 0.299 * Double(p[i]) + 0.587 * Double(p[i + 1]) + 0.114 * Double(p[i + 2])
            }
            for y in 0..<h {
                var rowSum = 0.0
                for x in 0..<w {
                    let i = (y * w + x) * 4
                    let r = Double(p[i]), g = Double(p[i + 1]), b = Double(p[i + 2]), a = Double(p[i + 3]) / 255
                    // Sobel gradient of luma.
                    let gx = luma(x + 1, y - 1) + 2 * luma(x + 1, y) + luma(x + 1, y + 1)
                        - luma(x - 1, y - 1) - 2 * luma(x - 1, y) - luma(x - 1, y + 1)
                    let gy = luma(x - 1, y + 1) + 2 * luma(x, y + 1) + luma(x + 1, y + 1)
                        - luma(x - 1, y - 1) - 2 * luma(x, y - 1) - luma(x + 1, y - 1)
                    var score = (gx * gx + gy * gy).squareRoot() / 4
                    let high = max(r, g, b), low = min(r, g, b)
                    let saturation = high > 0 ? (high - low) / high : 0
                    if saturation > 0.4 && high > 60 { score += 60 * saturation }
                    // Skin: warm hue, red above green above blue, moderate saturation.
                    if r > 95 && g > 40 && b > 20 && r > g && g > b && r - b > 15 && saturation > 0.15 && saturation < 0.7 {
                        score += 80
                    }
                    rowSum += score * a
                    table[(y + 1) * (w + 1) + x + 1] = table[y * (w + 1) + x + 1] + rowSum
                }
            }
        }
        // The window in small-image pixels, searched at every position.
        let sw = min(w, max(1, Int((Double(cw) / factor).rounded()))), sh = min(h, max(1, Int((Double(ch) / factor).rounded())))
        var best = -1.0, bestX = 0, bestY = 0
        for y in 0...(h - sh) {
            for x in 0...(w - sw) {
                let sum = table[(y + sh) * (w + 1) + x + sw] - table[y * (w + 1) + x + sw]
                    - table[(y + sh) * (w + 1) + x] + table[y * (w + 1) + x]
                // Ties go to the window nearer the centre.
                let centre = -abs(Double(x) - Double(w - sw) / 2) - abs(Double(y) - Double(h - sh) / 2)
                if sum > best + 1e-9 || (abs(sum - best) <= 1e-9 && centre > -abs(Double(bestX) - Double(w - sw) / 2) - abs(Double(bestY) - Double(h - sh) / 2)) {
                    best = sum
                    bestX = x
                    bestY = y
                }
            }
        }
        let x = min(max(0, Int((Double(bestX) * factor).rounded())), width - cw)
        let y = min(max(0, Int((Double(bestY) * factor).rounded())), height - ch)
        return PixelRect(x: x, y: y, width: cw, height: ch)
    }
}
