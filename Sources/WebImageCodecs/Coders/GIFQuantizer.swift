/// Reduces an RGBA frame to a GIF palette of at most 256 colours.
///
/// A frame with few enough distinct colours gets an exact palette (graphics, GIF round
/// trips). Otherwise colours are binned at 5 bits per channel, median cut splits the bins
/// into boxes, each box becomes its pixels' mean colour, and every bin maps to the palette
/// colour nearest its own mean. Pixels with alpha below 128 map to one extra transparent
/// index. Runs on the caller's thread.
struct GIFQuantizer {
    /// A frame as palette indices.
    struct Result {
        /// The opaque colours; at most 256 (255 with transparency).
        var colors: [(r: UInt8, g: UInt8, b: UInt8)]
        /// The index of transparent pixels (`colors.count`), or `nil` when all are opaque.
        var transparentIndex: Int?
        /// One index per pixel, rows top to bottom.
        var indices: [UInt8]
    }

    private static let binCount = 1 << 15

    static func quantize(_ pixels: PixelBuffer) -> Result {
        exactPalette(pixels) ?? medianCutPalette(pixels)
    }

    /// The palette of the frame's own colours, or `nil` when there are too many.
    private static func exactPalette(_ pixels: PixelBuffer) -> Result? {
        let pixelCount = pixels.width * pixels.height
        var lookup: [UInt32: UInt8] = [:]
        var colors: [(r: UInt8, g: UInt8, b: UInt8)] = []
        var transparentPixels: [Int] = []
        var lastColor: UInt32 = .max, lastIndex: UInt8 = 0
        var indices = [UInt8](repeating: 0, count: pixelCount)
        let fits = pixels.bytes.withUnsafeBufferPointer { src -> Bool in
            indices.withUnsafeMutableBufferPointer { out -> Bool in
                for p in 0..<pixelCount {
                    let i = p * 4
                    if src[i + 3] < 128 { transparentPixels.append(p); continue }
                    let color = UInt32(src[i]) << 16 | UInt32(src[i + 1]) << 8 | UInt32(src[i + 2])
                    if color != lastColor {
                        if let known = lookup[color] {
                            lastIndex = known
                        } else {
                            guard colors.count < 256 else { return false }
                            lastIndex = UInt8(colors.count)
                            lookup[color] = lastIndex
                            colors.append((src[i], src[i + 1], src[i + 2]))
                        }
                        lastColor = color
                    }
                    out[p] = lastIndex
                }
                return true
            }
        }
        guard fits else { return nil }
        guard !transparentPixels.isEmpty else { return Result(colors: colors, transparentIndex: nil, indices: indices) }
        guard colors.count < 256 else { return nil }
        let transparent = UInt8(colors.count)
        for p in transparentPixels { indices[p] = transparent }
        return Result(colors: colors, transparentIndex: colors.count, indices: indices)
    }

    private static func medianCutPalette(_ pixels: PixelBuffer) -> Result {
        let pixelCount = pixels.width * pixels.height
        var counts = [Int](repeating: 0, count: binCount)
        var sums = [SIMD4<Int>](repeating: .zero, count: binCount)
        var hasTransparency = false
        pixels.bytes.withUnsafeBufferPointer { src in
            for p in 0..<pixelCount {
                let i = p * 4
                if src[i + 3] < 128 { hasTransparency = true; continue }
                let r = Int(src[i]), g = Int(src[i + 1]), b = Int(src[i + 2])
                let key = (r >> 3) << 10 | (g >> 3) << 5 | b >> 3
                counts[key] += 1
                sums[key] &+= SIMD4(r, g, b, 0)
            }
        }
        var bins = (0..<binCount).filter { counts[$0] > 0 }
        var colors: [(r: UInt8, g: UInt8, b: UInt8)] = []
        for box in medianCut(&bins, counts: counts, maxBoxes: hasTransparency ? 255 : 256) {
            var sum = SIMD4<Int>.zero
            var total = 0
            for key in bins[box] {
                sum &+= sums[key]
                total += counts[key]
            }
            let t = max(total, 1)
            colors.append((UInt8(sum.x / t), UInt8(sum.y / t), UInt8(sum.z / t)))
        }
        var binIndex = [UInt8](repeating: 0, count: binCount)
        for key in bins {
            let n = counts[key]
            let mean = SIMD3(sums[key].x / n, sums[key].y / n, sums[key].z / n)
            var best = 0, bestDistance = Int.max
            for (i, c) in colors.enumerated() {
                let d = SIMD3(Int(c.r), Int(c.g), Int(c.b)) &- mean
                let distance = (d &* d).wrappedSum()
                if distance < bestDistance { best = i; bestDistance = distance }
            }
            binIndex[key] = UInt8(best)
        }
        let transparent = UInt8(truncatingIfNeeded: colors.count)
        let indices = pixels.bytes.withUnsafeBufferPointer { src in
            [UInt8](unsafeUninitializedCapacity: pixelCount) { out, initialized in
                for p in 0..<pixelCount {
                    let i = p * 4
                    if src[i + 3] < 128 { out[p] = transparent; continue }
                    let key = (Int(src[i]) >> 3) << 10 | (Int(src[i + 1]) >> 3) << 5 | Int(src[i + 2]) >> 3
                    out[p] = binIndex[key]
                }
                initialized = pixelCount
            }
        }
        return Result(colors: colors, transparentIndex: hasTransparency ? colors.count : nil, indices: indices)
    }

    /// Splits `bins` (reordering it) into at most `maxBoxes` ranges, each a box of colour
    /// space: repeatedly the box with the widest channel range times its pixel count is cut
    /// at the count-weighted median of that channel.
    private static func medianCut(_ bins: inout [Int], counts: [Int], maxBoxes: Int) -> [Range<Int>] {
        guard !bins.isEmpty else { return [] }
        var boxes = [box(0..<bins.count, bins: bins, counts: counts)]
        while boxes.count < maxBoxes {
            guard let pick = boxes.indices.filter({ boxes[$0].range.count > 1 })
                .max(by: { boxes[$0].score < boxes[$1].score }) else { break }
            let chosen = boxes[pick]
            let range = chosen.range, channel = chosen.channel
            bins[range].sort { channels($0)[channel] < channels($1)[channel] }
            var running = 0
            var cut = range.lowerBound + 1
            for i in range {
                running += counts[bins[i]]
                if running * 2 >= chosen.total {
                    cut = min(max(i + 1, range.lowerBound + 1), range.upperBound - 1)
                    break
                }
            }
            boxes[pick] = box(range.lowerBound..<cut, bins: bins, counts: counts)
            boxes.append(box(cut..<range.upperBound, bins: bins, counts: counts))
        }
        return boxes.map(\.range)
    }

    /// A median-cut box: its bins, pixel count, widest channel and split priority.
    private struct Box {
        var range: Range<Int>
        var total: Int
        var channel: Int
        var score: Int
    }

    private static func box(_ range: Range<Int>, bins: [Int], counts: [Int]) -> Box {
        var lo = SIMD3<Int>(repeating: 31), hi = SIMD3<Int>(repeating: 0)
        var total = 0
        for key in bins[range] {
            let c = channels(key)
            lo = pointwiseMin(lo, c)
            hi = pointwiseMax(hi, c)
            total += counts[key]
        }
        let spread = hi &- lo
        let channel = spread.x >= spread.y && spread.x >= spread.z ? 0 : (spread.y >= spread.z ? 1 : 2)
        return Box(range: range, total: total, channel: channel, score: (spread[channel] + 1) * total)
    }

    private static func channels(_ key: Int) -> SIMD3<Int> {
        SIMD3(key >> 10, (key >> 5) & 31, key & 31)
    }
}
