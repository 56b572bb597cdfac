#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension PixelBuffer {
    /// The size a buffer needs to hold this one rotated by `degrees` without cutting
    /// anything off, or `nil` when it is not finite or too large.
    public func rotatedBoundingSize(degrees: Double) -> PixelSize? {
        guard degrees.isFinite else { return nil }
        let t = degrees * .pi / 180
        let c = abs(cos(t)), s = abs(sin(t))
        let w = Double(width), h = Double(height)
        // The tolerance keeps exact right angles from growing by a pixel through rounding error.
        let outW = (w * c + h * s - 1e-6).rounded(.up)
        let outH = (w * s + h * c - 1e-6).rounded(.up)
        guard outW < Double(Int32.max), outH < Double(Int32.max) else { return nil }
        return PixelSize(width: max(1, Int(outW)), height: max(1, Int(outH)))
    }

    /// Returns the pixels rotated `degrees` counter-clockwise about the centre onto a
    /// `canvas`-sized buffer, centres aligned; uncovered area is transparent.
    ///
    /// Multiples of 90° with a matching canvas move pixels exactly; other angles sample
    /// bilinearly in premultiplied alpha, which also anti-aliases the image's edges
    /// against the transparent background. Runs on the caller's thread.
    public func rotated(degrees: Double, canvas: PixelSize) -> PixelBuffer {
        guard width > 0, height > 0, canvas.width > 0, canvas.height > 0, degrees.isFinite else {
            return PixelBuffer(width: max(0, canvas.width), height: max(0, canvas.height))
        }
        let remainder = degrees.truncatingRemainder(dividingBy: 360)
        let positive = remainder < 0 ? remainder + 360 : remainder
        if positive == positive.rounded(), Int(positive) % 90 == 0 {
            let exact: Orientation = [.up, .left, .down, .right][(Int(positive) / 90) % 4]
            let swapped = exact.swapsDimensions
            if canvas.width == (swapped ? height : width), canvas.height == (swapped ? width : height) {
                return oriented(exact)
            }
        }
        return rotatedBilinear(radians: degrees * .pi / 180, canvas: canvas)
    }

    private func rotatedBilinear(radians: Double, canvas: PixelSize) -> PixelBuffer {
        let w = width, h = height
        let cosT = cos(radians), sinT = sin(radians)
        let srcCX = Double(w) / 2, srcCY = Double(h) / 2
        let dstCX = Double(canvas.width) / 2, dstCY = Double(canvas.height) / 2
        return bytes.withUnsafeBufferPointer { src in
            PixelBuffer(width: canvas.width, height: canvas.height) { out in
                for dy in 0..<canvas.height {
                    // Inverse map of a counter-clockwise turn in y-down coordinates:
                    // source = (x' cos − y' sin, x' sin + y' cos), stepping linearly along the row.
                    let ry = Double(dy) + 0.5 - dstCY
                    let rx0 = 0.5 - dstCX
                    var sx = rx0 * cosT - ry * sinT + srcCX - 0.5
                    var sy = rx0 * sinT + ry * cosT + srcCY - 0.5
                    var o = dy * canvas.width * 4
                    for _ in 0..<canvas.width {
                        PixelBuffer.sampleBilinear(src, w, h, sx, sy, out, o)
                        sx += cosT
                        sy += sinT
                        o += 4
                    }
                }
            }
        }
    }

    /// Writes the bilinear sample at source position (`x`, `y`) (pixel centres at whole
    /// numbers) to `out[o…o+3]`; neighbours outside the source count as transparent.
    @inline(__always)
    private static func sampleBilinear(
        _ src: UnsafeBufferPointer<UInt8>, _ w: Int, _ h: Int, _ x: Double, _ y: Double,
        _ out: UnsafeMutableBufferPointer<UInt8>, _ o: Int
    ) {
        let fx = x.rounded(.down), fy = y.rounded(.down)
        guard fx >= -1, fy >= -1, fx < Double(w), fy < Double(h) else {
            out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 0
            return
        }
        let x0 = Int(fx), y0 = Int(fy)
        let tx = Float(x - fx), ty = Float(y - fy)
        var acc = SIMD4<Float>.zero
        let weights = SIMD4<Float>((1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty)
        for k in 0..<4 {
            let px = x0 + (k & 1), py = y0 + (k >> 1)
            guard px >= 0, py >= 0, px < w, py < h else { continue }
            let i = (py * w + px) * 4
            let a = Float(src[i + 3])
            let f = a * (1 / 255) * weights[k]
            acc += SIMD4<Float>(Float(src[i]) * f, Float(src[i + 1]) * f, Float(src[i + 2]) * f, a * weights[k])
        }
        let a = min(acc.w, 255)
        if a < 0.5 {
            out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 0
            return
        }
        let rgb = (acc * (255 / a)).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
        out[o] = UInt8(rgb.x + 0.5)
        out[o + 1] = UInt8(rgb.y + 0.5)
        out[o + 2] = UInt8(rgb.z + 0.5)
        out[o + 3] = UInt8(a + 0.5)
    }
}
