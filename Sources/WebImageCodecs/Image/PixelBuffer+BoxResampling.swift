extension PixelBuffer {
    /// ``ResamplingFilter/box``: downscaling averages the exact area each output pixel
    /// covers (fractional edges weighted), so fine patterns such as a one-pixel checkerboard
    /// turn into their mean instead of aliasing; upscaling interpolates bilinearly. Colour is
    /// averaged weighted by alpha. Sizes are positive and differ from the buffer's.
    func boxResampled(width outW: Int, height outH: Int) -> PixelBuffer {
        let horizontal = BoxResamplingKernel(source: width, destination: outW)
        let vertical = BoxResamplingKernel(source: height, destination: outH)

        // Pass 1: resample each source row horizontally into premultiplied floats.
        var rows = [SIMD4<Float>](repeating: .zero, count: outW * height)
        bytes.withUnsafeBufferPointer { src in
            rows.withUnsafeMutableBufferPointer { tmp in
                for y in 0..<height {
                    let srcRow = y * width * 4
                    let tmpRow = y * outW
                    for x in 0..<outW {
                        var acc = SIMD4<Float>.zero
                        let start = horizontal.starts[x]
                        let base = x * horizontal.stride
                        for k in 0..<horizontal.counts[x] {
                            let i = srcRow + (start + k) * 4
                            let a = Float(src[i + 3])
                            let f = a * (1 / 255)
                            let px = SIMD4<Float>(Float(src[i]) * f, Float(src[i + 1]) * f, Float(src[i + 2]) * f, a)
                            acc += px * horizontal.weights[base + k]
                        }
                        tmp[tmpRow + x] = acc
                    }
                }
            }
        }

        // Pass 2: combine rows vertically, then un-premultiply into bytes.
        return rows.withUnsafeBufferPointer { tmp in
            PixelBuffer(width: outW, height: outH) { out in
                var acc = [SIMD4<Float>](repeating: .zero, count: outW)
                acc.withUnsafeMutableBufferPointer { acc in
                    for y in 0..<outH {
                        for x in 0..<outW { acc[x] = .zero }
                        let start = vertical.starts[y]
                        let base = y * vertical.stride
                        for k in 0..<vertical.counts[y] {
                            let w = vertical.weights[base + k]
                            let row = (start + k) * outW
                            for x in 0..<outW { acc[x] += tmp[row + x] * w }
                        }
                        let outRow = y * outW * 4
                        for x in 0..<outW {
                            let p = acc[x]
                            let a = min(max(p.w, 0), 255)
                            let i = outRow + x * 4
                            if a < 0.5 {
                                out[i] = 0; out[i + 1] = 0; out[i + 2] = 0; out[i + 3] = 0
                                continue
                            }
                            let rgb = (p * (255 / a)).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
                            out[i] = UInt8(rgb.x + 0.5)
                            out[i + 1] = UInt8(rgb.y + 0.5)
                            out[i + 2] = UInt8(rgb.z + 0.5)
                            out[i + 3] = UInt8(a + 0.5)
                        }
                    }
                }
            }
        }
    }
}

/// Per-output-pixel source ranges and weights for one axis of a box (or bilinear) resample.
struct BoxResamplingKernel {
    /// First source index each output index reads.
    var starts: [Int]
    /// Number of source indices each output index reads.
    var counts: [Int]
    /// `stride` weights per output index (unused slots are zero); each row sums to 1.
    var weights: [Float]
    var stride: Int

    init(source: Int, destination: Int) {
        starts = [Int](repeating: 0, count: destination)
        counts = [Int](repeating: 0, count: destination)
        if source > destination {
            // Box filter: output i covers source interval [i*r, (i+1)*r).
            let r = Double(source) / Double(destination)
            stride = Int(r.rounded(.up)) + 1
            weights = [Float](repeating: 0, count: destination * stride)
            for i in 0..<destination {
                let lo = Double(i) * r
                let hi = min(Double(i + 1) * r, Double(source))
                let first = Int(lo)
                let last = min(Int(hi.rounded(.up)) - 1, source - 1)
                starts[i] = first
                counts[i] = last - first + 1
                for j in first...last {
                    let overlap = min(hi, Double(j + 1)) - max(lo, Double(j))
                    weights[i * stride + (j - first)] = Float(overlap / r)
                }
            }
        } else {
            // Bilinear: sample at the output pixel's centre mapped into the source.
            stride = 2
            weights = [Float](repeating: 0, count: destination * stride)
            let r = Double(source) / Double(destination)
            for i in 0..<destination {
                let c = (Double(i) + 0.5) * r - 0.5
                let j0 = Int(c.rounded(.down))
                let t = Float(c - Double(j0))
                let a = min(max(j0, 0), source - 1)
                let b = min(max(j0 + 1, 0), source - 1)
                starts[i] = a
                if a == b {
                    counts[i] = 1
                    weights[i * stride] = 1
                } else {
                    counts[i] = 2
                    weights[i * stride] = 1 - t
                    weights[i * stride + 1] = t
                }
            }
        }
    }
}
