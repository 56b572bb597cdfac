import Foundation

/// The weights of one axis of a Lanczos3 resample: which pre-shrunk pixels each output
/// pixel reads and how much of each, in Q14 fixed point (16384 = 1).
///
/// The gap rule first: when the source is at least `2 × gap` times the output, an integer
/// box shrink by `boxFactor = ⌊(source / output) / gap⌋` comes first (each pre-shrunk pixel
/// averages `boxFactor` source pixels), leaving a residual scale of at least `gap` for the
/// kernel. This is libvips' `reduce` (its default gap is 2): the box is cheap and the
/// kernel then needs ~6 × residual taps instead of ~6 × the whole scale.
///
/// Geometry follows the centre convention: output pixel `j` is centred at
/// `(j + 0.5) × scale` in source coordinates where source pixel `i` covers `[i, i + 1)`, so
/// source and output span the same extent. Taps that fall beyond an edge take the edge
/// pixel (their weight is added to it). Built on the caller's thread; it costs one
/// evaluation of the kernel per tap.
struct LanczosKernel: Sendable {
    /// The kernel's gap: the residual scale the box shrink leaves at least. libvips uses 2.
    static let gap = 4.0

    /// Source pixels averaged into each pre-shrunk pixel (1: no box shrink).
    let boxFactor: Int
    /// Pre-shrunk pixels along the axis: `⌈source / boxFactor⌉`.
    let inputLength: Int
    /// Output pixels along the axis.
    let outputLength: Int
    /// Taps per output pixel (the widest window; narrower ones are padded with zeros).
    let count: Int
    /// Weights stored per output pixel: ``count`` rounded up to a multiple of 4, the extra
    /// ones zero, so the horizontal pass's AVX2 loop takes four taps at a time with no tail.
    let stride: Int
    /// First pre-shrunk pixel each output pixel reads; `starts[j] + count <= inputLength`.
    let starts: [Int32]
    /// `stride` weights per output pixel, the first `count` summing to exactly 16384.
    let weights: [Int16]

    /// - Parameters:
    ///   - source: source pixels along the axis (at least 1).
    ///   - extent: how much of the source the image covers, in source pixels (default: all
    ///     of it). A DCT-scaled JPEG's last pixel may stand for less than a whole one.
    ///   - destination: output pixels along the axis (at least 1).
    init(source: Int, extent: Double? = nil, destination: Int) {
        let extent = extent ?? Double(source)
        let ratio = extent / Double(destination)
        boxFactor = max(1, min(source, Int((ratio / Self.gap).rounded(.down))))
        inputLength = (source + boxFactor - 1) / boxFactor
        outputLength = destination
        let scale = ratio / Double(boxFactor)
        // Downscaling stretches the kernel over `scale` input pixels; upscaling does not.
        let stretch = max(scale, 1)
        let radius = 3 * stretch

        // Every window first, quantised, in one flat buffer of `span` slots per output pixel
        // (a window never holds more than 2 × radius + 1 taps): one allocation for all of
        // them, where an array per window cost more than the weights themselves.
        let span = scale == 1 ? 1 : Int(2 * radius) + 2
        let inputLength = inputLength
        var windowStarts = [Int](repeating: 0, count: destination)
        var windowWidths = [Int](repeating: 1, count: destination)
        var quantised = [Int16](repeating: 0, count: destination * span)
        var leading = Int.max, trailing = Int.max
        var values = [Double](repeating: 0, count: span)
        for j in 0..<destination {
            // An axis left as it is: each output pixel is its source pixel.
            if scale == 1 {
                windowStarts[j] = j
                quantised[j] = 16384
                leading = 0; trailing = 0
                continue
            }
            let centre = (Double(j) + 0.5) * scale
            let first = Int((centre - radius - 0.5).rounded(.up))
            let last = Int((centre + radius - 0.5).rounded(.down))
            let lo = min(max(first, 0), inputLength - 1), hi = min(max(last, 0), inputLength - 1)
            let width = hi - lo + 1
            for t in 0..<width { values[t] = 0 }
            var total = 0.0
            var wave = LanczosWave(start: (Double(first) + 0.5 - centre) / stretch, step: 1 / stretch)
            for i in first...max(first, last) {
                let value = wave.next()
                values[min(max(i, 0), inputLength - 1) - lo] += value
                total += value
            }
            Self.quantise(values, count: width, total: total, into: &quantised, at: j * span)
            windowStarts[j] = lo
            windowWidths[j] = width
            let window = quantised[(j * span)..<(j * span + width)]
            leading = min(leading, window.prefix(while: { $0 == 0 }).count)
            trailing = min(trailing, window.reversed().prefix(while: { $0 == 0 }).count)
        }
        // Taps that carry nothing for every output pixel go (after rounding, the kernel's
        // far ends often do). Trimming all windows alike keeps the starts in order, which the
        // resampler's ring of rows relies on; trimming each alone would not (an upscale's
        // exact phases).
        var widest = 1
        var kept = [Range<Int>](repeating: 0..<1, count: destination)
        for j in 0..<destination {
            let width = windowWidths[j]
            kept[j] = width > leading + trailing ? leading..<(width - trailing) : 0..<width
            widest = max(widest, kept[j].count)
        }

        count = min(widest, inputLength)
        stride = (count + 3) / 4 * 4
        var starts = [Int32](repeating: 0, count: destination)
        var weights = [Int16](repeating: 0, count: destination * stride)
        for j in 0..<destination {
            let windowStart = windowStarts[j] + kept[j].lowerBound
            let start = min(windowStart, inputLength - count)
            starts[j] = Int32(start)
            for (t, slot) in kept[j].enumerated() {
                weights[j * stride + windowStart - start + t] = quantised[j * span + slot]
            }
        }
        self.starts = starts
        self.weights = weights
    }

    /// Lanczos3, `L(x) = sinc(x) · sinc(x / 3)` for |x| < 3 (else 0), at `start`,
    /// `start + step`, `start + 2·step`…: the two sines advance by
    /// rotation (two multiply-adds each) instead of a library call per tap, which the
    /// kernels of a thumbnail would otherwise spend a twentieth of a millisecond per
    /// hundred output pixels on.
    struct LanczosWave {
        private var x: Double
        private let step: Double
        private var sine: Double, cosine: Double, sineThird: Double, cosineThird: Double
        private let stepSine: Double, stepCosine: Double, stepSineThird: Double, stepCosineThird: Double

        init(start: Double, step: Double) {
            x = start
            self.step = step
            sine = sin(.pi * start); cosine = cos(.pi * start)
            sineThird = sin(.pi * start / 3); cosineThird = cos(.pi * start / 3)
            stepSine = sin(.pi * step); stepCosine = cos(.pi * step)
            stepSineThird = sin(.pi * step / 3); stepCosineThird = cos(.pi * step / 3)
        }

        /// L(x), then x advances by the step.
        mutating func next() -> Double {
            let value: Double
            if abs(x) < 1e-9 {
                value = 1
            } else if abs(x) >= 3 {
                value = 0
            } else {
                value = 3 * sine * sineThird / (.pi * .pi * x * x)
            }
            x += step
            (sine, cosine) = (sine * stepCosine + cosine * stepSine, cosine * stepCosine - sine * stepSine)
            (sineThird, cosineThird) = (sineThird * stepCosineThird + cosineThird * stepSineThird,
                                        cosineThird * stepCosineThird - sineThird * stepSineThird)
            return value
        }
    }

    /// The first `count` of `values` over `total` (so they sum to 1) as Q14 integers summing
    /// to exactly 16384, written from `offset` on: each rounded, and what rounding lost or
    /// gained put on the largest, where it matters least.
    static func quantise(_ values: [Double], count: Int, total: Double, into out: inout [Int16], at offset: Int) {
        var sum = 0, largest = 0, largestMagnitude = -1
        for t in 0..<count {
            let q = Int((values[t] / total * 16384).rounded())
            out[offset + t] = Int16(clamping: q)
            sum += q
            if abs(q) > largestMagnitude {
                largest = t
                largestMagnitude = abs(q)
            }
        }
        out[offset + largest] = Int16(clamping: Int(out[offset + largest]) + 16384 - sum)
    }
}
