import CResample
import Foundation
import Testing
@testable import WebImageCodecs

/// The Lanczos3 resampler (``ResamplingFilter/lanczos3``), checked against a direct,
/// floating-point reading of its definition written here, and for the properties a
/// thumbnail needs: flat stays flat, alpha does not bleed, strips equal one pass.
@Suite("Lanczos3 resampler", .timeLimit(.minutes(1)))
struct ResamplerTests {
    /// A deterministic RGBA test card: smooth gradients, a hard edge and some noise.
    static func card(width: Int, height: Int, alpha: Bool = false) -> PixelBuffer {
        var seed: UInt32 = 12_345
        return PixelBuffer(width: width, height: height) { p in
            for y in 0..<height {
                for x in 0..<width {
                    seed = seed &* 1_664_525 &+ 1_013_904_223
                    let i = (y * width + x) * 4
                    let noise = Int(seed >> 27)
                    p[i] = UInt8(clamping: x * 255 / max(1, width - 1) + noise - 16)
                    p[i + 1] = UInt8(clamping: y * 255 / max(1, height - 1))
                    p[i + 2] = x < width / 3 ? 30 : 220
                    p[i + 3] = alpha ? UInt8(clamping: (x + y) * 255 / max(1, width + height - 2)) : 255
                }
            }
        }
    }

    /// `sinc(x) · sinc(x / 3)` for |x| < 3, else 0.
    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        return 3 * sin(Double.pi * x) * sin(Double.pi * x / 3) / (Double.pi * Double.pi * x * x)
    }

    /// Lanczos3 as the doc comment defines it, in Double, one axis: the centre convention,
    /// support stretched by the scale when shrinking, edge pixels repeated. No box step,
    /// so callers keep the scale under 8 (where the resampler has none either).
    static func referenceAxis(_ values: [Double], count: Int, stride: Int, to output: Int) -> [Double] {
        let scale = Double(count) / Double(output), stretch = max(scale, 1)
        var out = [Double](repeating: 0, count: output * stride)
        for j in 0..<output {
            let centre = (Double(j) + 0.5) * scale
            var weights: [(Int, Double)] = []
            for i in Int((centre - 3 * stretch).rounded(.down)) - 1...Int((centre + 3 * stretch).rounded(.up)) + 1 {
                let w = lanczos3((Double(i) + 0.5 - centre) / stretch)
                if w != 0 { weights.append((min(max(i, 0), count - 1), w)) }
            }
            let total = weights.reduce(0) { $0 + $1.1 }
            for c in 0..<stride {
                out[j * stride + c] = weights.reduce(0) { $0 + $1.1 * values[$1.0 * stride + c] } / total
            }
        }
        return out
    }

    /// The reference for an opaque image: rows, then columns, rounded once at the end.
    static func reference(_ image: PixelBuffer, width: Int, height: Int) -> [UInt8] {
        let w = image.width, h = image.height
        var rows: [Double] = []
        for y in 0..<h {
            rows += referenceAxis((0..<(w * 4)).map { Double(image.bytes[y * w * 4 + $0]) }, count: w, stride: 4, to: width)
        }
        // Columns: treat each column of the row-resampled image as a line of `h` values.
        var out = [UInt8](repeating: 0, count: width * height * 4)
        for x in 0..<(width * 4) {
            let column = (0..<h).map { rows[$0 * width * 4 + x] }
            let resampled = referenceAxis(column, count: h, stride: 1, to: height)
            for y in 0..<height { out[y * width * 4 + x] = UInt8(clamping: Int(resampled[y].rounded())) }
        }
        return out
    }

    @Test("matches a floating-point Lanczos3 within one level", arguments: [
        (64, 48, 20, 15), (64, 48, 31, 47), (50, 40, 9, 7), (20, 12, 47, 30), (17, 9, 17, 25), (40, 30, 40, 11),
    ])
    func matchesReference(w: Int, h: Int, outW: Int, outH: Int) throws {
        let image = Self.card(width: w, height: h)
        let ours = image.resampled(width: outW, height: outH)
        let expected = Self.reference(image, width: outW, height: outH)
        #expect(ours.width == outW && ours.height == outH)
        let worst = zip(ours.bytes, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 1, "\(w)×\(h) → \(outW)×\(outH): off by up to \(worst)")
    }

    @Test("a flat colour stays exactly flat, opaque or translucent, through the box step too", arguments: [
        (300, 200, 7, 5), (97, 61, 40, 30), (10, 10, 33, 17), (1000, 3, 9, 1),
    ])
    func flatStaysFlat(w: Int, h: Int, outW: Int, outH: Int) {
        for pixel: [UInt8] in [[12, 200, 99, 255], [250, 3, 128, 77]] {
            let flat = PixelBuffer(width: w, height: h, bytes: [UInt8]((0..<(w * h)).flatMap { _ in pixel }))!
            let out = flat.resampled(width: outW, height: outH)
            #expect(Set(stride(from: 0, to: out.bytes.count, by: 4).map { Array(out.bytes[$0..<($0 + 4)]) }) == [pixel])
        }
    }

    @Test("transparent pixels lend no colour to their neighbours")
    func alphaDoesNotBleed() {
        // Left half opaque red, right half fully transparent green.
        let w = 40, h = 8
        let image = PixelBuffer(width: w, height: h) { p in
            for i in 0..<(w * h) {
                let left = i % w < w / 2
                p[i * 4] = left ? 255 : 0; p[i * 4 + 1] = left ? 0 : 255; p[i * 4 + 2] = 0; p[i * 4 + 3] = left ? 255 : 0
            }
        }
        let out = image.resampled(width: 10, height: 2)
        for x in 0..<10 {
            let p = out[x, 0]!
            if p.a > 0 { #expect(p.r == 255 && p.g == 0, "pixel \(x): \(p)") }
        }
        #expect(out[0, 0]?.a == 255 && out[9, 0]?.a == 0)
    }

    @Test("rows fed in strips of any size give the same image as all at once")
    func stripsEqualOnePass() {
        let image = Self.card(width: 123, height: 91, alpha: true)
        let whole = image.resampled(width: 50, height: 17)
        for strip in [1, 3, 16, 90] {
            var resampler = Resampler(sourceWidth: 123, sourceHeight: 91, width: 50, height: 17)
            image.bytes.withUnsafeBufferPointer { p in
                var y = 0
                while y < 91 {
                    let rows = min(strip, 91 - y)
                    resampler.consume(p.baseAddress! + y * 123 * 4, count: rows, stride: 123 * 4)
                    y += rows
                }
            }
            #expect(resampler.isComplete)
            #expect(resampler.image == whole, "strips of \(strip)")
        }
    }

    @Test("the gap rule: a box shrink leaves the kernel between 4 and 8 times, weights sum to one")
    func kernelShape() {
        for (source, output) in [(3024, 500), (1000, 7), (4000, 1), (100, 99), (7, 300), (65_535, 3)] {
            let kernel = LanczosKernel(source: source, destination: output)
            let ratio = Double(source) / Double(output)
            #expect(kernel.boxFactor == max(1, Int(ratio / 4)), "\(source) → \(output)")
            #expect(kernel.inputLength == (source + kernel.boxFactor - 1) / kernel.boxFactor)
            for j in 0..<output {
                let start = Int(kernel.starts[j])
                #expect(start >= 0 && start + kernel.count <= kernel.inputLength)
                let taps = kernel.weights[(j * kernel.stride)..<((j + 1) * kernel.stride)]
                #expect(taps.prefix(kernel.count).reduce(0) { $0 + Int($1) } == 16384)
                #expect(taps.dropFirst(kernel.count).allSatisfy { $0 == 0 } && kernel.stride % 4 == 0)
            }
        }
        // Same size: one tap of weight one.
        let identity = LanczosKernel(source: 10, destination: 10)
        #expect(identity.count == 1 && (0..<10).allSatisfy { identity.weights[$0 * identity.stride] == 16384 })
    }

    @Test("turning premultiplied rows back to bytes: the SIMD loop gives what the per-pixel loop does")
    func premultipliedStoreMatchesScalar() {
        // Every kind of value the passes can produce: colour and alpha below 0, above
        // 255 × 64, and alphas around the "rounds to 0" edge (32) and at exactly 255 × 64.
        var seed: UInt32 = 99
        func next(_ range: ClosedRange<Int>) -> Int16 {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return Int16(range.lowerBound + Int(seed >> 8) % (range.count))
        }
        let width = 4099
        var row = [Int16](repeating: 0, count: width * 4)
        for x in 0..<width {
            let edge: [Int16] = [0, 31, 32, 33, 16_319, 16_320, 16_321, -5]
            row[x * 4 + 3] = x % 3 == 0 ? edge[x % edge.count] : next(-2000...20_000)
            for c in 0..<3 { row[x * 4 + c] = next(-3000...32_000) }
        }
        var together = [UInt8](repeating: 0, count: width * 4)
        var alone = [UInt8](repeating: 0, count: width * 4)
        row.withUnsafeBufferPointer { src in
            together.withUnsafeMutableBufferPointer { wi_rs_store_row(src.baseAddress!, width, 1, $0.baseAddress!) }
            alone.withUnsafeMutableBufferPointer { out in
                // One pixel at a time never reaches the SIMD loop.
                for x in 0..<width { wi_rs_store_row(src.baseAddress! + x * 4, 1, 1, out.baseAddress! + x * 4) }
            }
        }
        #expect(together == alone)
    }

    @Test("a large downscale through the box step keeps a ramp a ramp")
    func largeDownscale() {
        let w = 4000
        let ramp = PixelBuffer(width: w, height: 2) { p in
            for i in 0..<(w * 2) {
                let v = UInt8((i % w) * 256 / w)
                p[i * 4] = v; p[i * 4 + 1] = v; p[i * 4 + 2] = v; p[i * 4 + 3] = 255
            }
        }
        let out = ramp.resampled(width: 16, height: 1)
        for x in 0..<16 {
            // Pixel x averages the source around its centre, (x + 0.5) × 250.
            let expected = (Double(x) + 0.5) * 16
            #expect(abs(Double(out[x, 0]!.r) - expected) <= 1.5, "pixel \(x): \(out[x, 0]!.r) vs \(expected)")
        }
    }

    @Test("the box filter is still there, and differs")
    func boxFilter() {
        let image = Self.card(width: 64, height: 48)
        let box = image.resampled(width: 20, height: 15, filter: .box)
        let lanczos = image.resampled(width: 20, height: 15)
        #expect(box.width == 20 && box.height == 15)
        #expect(box != lanczos)
        // 2×1 → 1×1: the box is the exact mean.
        let pair = PixelBuffer(width: 2, height: 1, bytes: [0, 0, 0, 255, 200, 100, 50, 255])!
        #expect(pair.resampled(width: 1, height: 1, filter: .box).bytes == [100, 50, 25, 255])
    }
}
