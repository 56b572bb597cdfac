/// The three box-blur passes that approximate a gaussian, used by ``WebImageCodecs/PixelBuffer/blurred(radius:)``.
///
/// Three successive box filters converge closely on a gaussian (central limit), and a
/// box filter costs the same per pixel for any width thanks to a running sum.
enum BoxBlur {
    /// Half-widths of the three boxes whose combined variance matches `sigma`²;
    /// zero-width passes (identity) are left out.
    static func radii(sigma: Double) -> [Int] {
        let passes = 3.0
        let variance12 = 12 * sigma * sigma
        var lower = Int((variance12 / passes + 1).squareRoot())
        if lower % 2 == 0 { lower -= 1 }
        lower = max(lower, 1)
        let upper = lower + 2
        // How many passes use the lower width so the variances add up to sigma².
        let l = Double(lower)
        let lowerCount = Int(((variance12 - passes * l * l - 4 * passes * l - 3 * passes) / (-4 * l - 4)).rounded())
        return (0..<3).map { ($0 < lowerCount ? lower : upper) / 2 }.filter { $0 > 0 }
    }

    /// One box pass along a run of `count` rows of `width` pixels each: output row `i`
    /// is the mean of input rows `i - radius … i + radius`, the ends repeated past the edges.
    ///
    /// With `width` 1 this blurs one line; with wider rows it blurs a strip of columns
    /// vertically while reading memory in order.
    static func pass(
        _ src: UnsafeMutableBufferPointer<SIMD4<Float>>, _ dst: UnsafeMutableBufferPointer<SIMD4<Float>>,
        width: Int, count: Int, radius: Int, sums: UnsafeMutableBufferPointer<SIMD4<Float>>
    ) {
        let last = count - 1
        let scale = 1 / Float(2 * radius + 1)
        // The window of output 0 holds `radius` copies of row 0 to its left, and rows
        // past the end repeat the last row.
        for s in 0..<width { sums[s] = src[s] * Float(radius) }
        for k in 0...min(radius, last) {
            let row = k * width
            for s in 0..<width { sums[s] += src[row + s] }
        }
        if radius > last {
            let extra = Float(radius - last)
            let row = last * width
            for s in 0..<width { sums[s] += src[row + s] * extra }
        }
        for i in 0..<count {
            let o = i * width
            let add = min(i + radius + 1, last) * width
            let remove = max(i - radius, 0) * width
            for s in 0..<width {
                dst[o + s] = sums[s] * scale
                sums[s] += src[add + s] - src[remove + s]
            }
        }
    }

    /// Runs one pass per radius, alternating between `a` and `b`; returns where the
    /// result ended up.
    static func passes(
        _ radii: [Int], _ a: UnsafeMutableBufferPointer<SIMD4<Float>>, _ b: UnsafeMutableBufferPointer<SIMD4<Float>>,
        width: Int, count: Int, sums: UnsafeMutableBufferPointer<SIMD4<Float>>
    ) -> UnsafeMutableBufferPointer<SIMD4<Float>> {
        var src = a, dst = b
        for r in radii {
            pass(src, dst, width: width, count: count, radius: r, sums: sums)
            swap(&src, &dst)
        }
        return src
    }
}
