extension PixelBuffer {
    /// The largest blur radius honoured; larger radii blur as much as this one.
    public static let maxBlurRadius = 10_000.0

    /// Returns the pixels blurred by a gaussian of standard deviation `radius` pixels.
    ///
    /// Three box passes per axis approximate the gaussian, so the cost per pixel does
    /// not depend on the radius. Colour is blurred premultiplied by alpha, so transparent
    /// pixels do not bleed dark fringes; edges repeat the border pixels. Needs 16 bytes
    /// of scratch per pixel. Runs on the caller's thread.
    public func blurred(radius: Double) -> PixelBuffer {
        guard width > 0, height > 0, radius.isFinite, radius > 0 else { return self }
        let radii = BoxBlur.radii(sigma: min(radius, PixelBuffer.maxBlurRadius))
        if radii.isEmpty { return self }
        let w = width, h = height
        var plane = [SIMD4<Float>](repeating: .zero, count: w * h)
        plane.withUnsafeMutableBufferPointer { plane in
            bytes.withUnsafeBufferPointer { src in
                blurRows(src, into: plane, radii: radii)
            }
        }
        return plane.withUnsafeMutableBufferPointer { plane in
            PixelBuffer(width: w, height: h) { out in
                blurColumns(plane, into: out, radii: radii)
            }
        }
    }

    /// Horizontal passes: each row's premultiplied pixels go through a line scratch into `plane`.
    private func blurRows(
        _ src: UnsafeBufferPointer<UInt8>, into plane: UnsafeMutableBufferPointer<SIMD4<Float>>, radii: [Int]
    ) {
        let w = width
        var scratch = [SIMD4<Float>](repeating: .zero, count: 2 * w + 1)
        scratch.withUnsafeMutableBufferPointer { scratch in
            guard let base = scratch.baseAddress else { return }
            let a = UnsafeMutableBufferPointer(start: base, count: w)
            let b = UnsafeMutableBufferPointer(start: base + w, count: w)
            let sums = UnsafeMutableBufferPointer(start: base + 2 * w, count: 1)
            for y in 0..<height {
                let row = y * w
                for x in 0..<w {
                    let i = (row + x) * 4
                    let alpha = Float(src[i + 3])
                    let f = alpha * (1 / 255)
                    a[x] = SIMD4(Float(src[i]) * f, Float(src[i + 1]) * f, Float(src[i + 2]) * f, alpha)
                }
                let result = BoxBlur.passes(radii, a, b, width: 1, count: w, sums: sums)
                for x in 0..<w { plane[row + x] = result[x] }
            }
        }
    }

    /// Vertical passes over strips of columns, so memory is read row by row, then
    /// un-premultiplied into `out`.
    private func blurColumns(
        _ plane: UnsafeMutableBufferPointer<SIMD4<Float>>, into out: UnsafeMutableBufferPointer<UInt8>, radii: [Int]
    ) {
        let w = width, h = height
        let stripWidth = min(32, w)
        var scratch = [SIMD4<Float>](repeating: .zero, count: (2 * h + 1) * stripWidth)
        scratch.withUnsafeMutableBufferPointer { scratch in
            guard let base = scratch.baseAddress else { return }
            let a = UnsafeMutableBufferPointer(start: base, count: h * stripWidth)
            let b = UnsafeMutableBufferPointer(start: base + h * stripWidth, count: h * stripWidth)
            let sums = UnsafeMutableBufferPointer(start: base + 2 * h * stripWidth, count: stripWidth)
            for x0 in stride(from: 0, to: w, by: stripWidth) {
                let sw = min(stripWidth, w - x0)
                for y in 0..<h {
                    for s in 0..<sw { a[y * sw + s] = plane[y * w + x0 + s] }
                }
                let result = BoxBlur.passes(radii, a, b, width: sw, count: h, sums: sums)
                for y in 0..<h {
                    for s in 0..<sw {
                        let p = result[y * sw + s]
                        let o = (y * w + x0 + s) * 4
                        let alpha = min(max(p.w, 0), 255)
                        if alpha < 0.5 {
                            out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 0
                            continue
                        }
                        let rgb = (p * (255 / alpha)).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
                        out[o] = UInt8(rgb.x + 0.5)
                        out[o + 1] = UInt8(rgb.y + 0.5)
                        out[o + 2] = UInt8(rgb.z + 0.5)
                        out[o + 3] = UInt8(alpha + 0.5)
                    }
                }
            }
        }
    }
}
