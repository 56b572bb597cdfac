/// The main colours of an image by median cut: what imgproxy Pro's `/info` calls
/// `palette`, and the candidates ``DominantColors`` picks from.
///
/// Pixels are binned at 5 bits per channel (fully transparent pixels are left out); the
/// box of bins with the most pixels times the widest channel range is split at its
/// population median along that channel until there are `maxColors` boxes or none can be
/// split; each box becomes its pixels' mean colour (alpha included). Deterministic: the
/// same pixels give the same palette. Runs on the caller's thread; a 100×100 thumbnail
/// takes well under a millisecond.
public enum ColorPalette {
    /// One colour of a palette and how many pixels it stands for.
    public struct Swatch: Sendable, Hashable {
        public var color: RGBA
        public var population: Int

        public init(color: RGBA, population: Int) {
            self.color = color
            self.population = population
        }
    }

    /// The counts a palette may have (imgproxy's `palette` option: 2…256).
    public static let colorRange = 2...256

    /// At most `maxColors` swatches (clamped to 1…256) of `pixels`, most populous first;
    /// empty when every pixel is fully transparent.
    public static func swatches(_ pixels: PixelBuffer, maxColors: Int) -> [Swatch] {
        let limit = min(max(maxColors, 1), 256)
        var bins = [Bin](repeating: Bin(), count: 1 << 15)
        pixels.bytes.withUnsafeBufferPointer { p in
            var i = 0
            while i + 3 < p.count {
                if p[i + 3] != 0 {
                    let key = Int(p[i] >> 3) << 10 | Int(p[i + 1] >> 3) << 5 | Int(p[i + 2] >> 3)
                    bins[key].add(p[i], p[i + 1], p[i + 2], p[i + 3])
                }
                i += 4
            }
        }
        let used = bins.indices.filter { bins[$0].count > 0 }
        guard !used.isEmpty else { return [] }
        var boxes = [Box(keys: used, bins: bins)]
        while boxes.count < limit {
            // The box most worth splitting: many pixels over a wide range of one channel.
            guard let index = boxes.indices.filter({ boxes[$0].keys.count > 1 })
                .max(by: { boxes[$0].priority < boxes[$1].priority || (boxes[$0].priority == boxes[$1].priority && $0 > $1) })
            else { break }
            let (low, high) = boxes[index].split(bins: bins)
            boxes[index] = low
            boxes.append(high)
        }
        var merged: [RGBA: Int] = [:]
        for box in boxes {
            merged[box.mean(bins: bins), default: 0] += box.population
        }
        return merged.map { Swatch(color: $0.key, population: $0.value) }.sorted {
            $0.population != $1.population ? $0.population > $1.population : $0.color.packed < $1.color.packed
        }
    }

    /// The sums of one 15-bit bin.
    struct Bin {
        var count = 0
        var r = 0, g = 0, b = 0, a = 0

        mutating func add(_ red: UInt8, _ green: UInt8, _ blue: UInt8, _ alpha: UInt8) {
            count += 1
            r += Int(red)
            g += Int(green)
            b += Int(blue)
            a += Int(alpha)
        }
    }

    /// A set of bins.
    struct Box {
        var keys: [Int]
        var population: Int
        /// The channel (0 red, 1 green, 2 blue) with the widest range, and that range.
        var channel: Int
        var range: Int

        init(keys: [Int], bins: [Bin]) {
            self.keys = keys
            population = keys.reduce(0) { $0 + bins[$1].count }
            var low = [31, 31, 31], high = [0, 0, 0]
            for key in keys {
                for c in 0..<3 {
                    let v = Box.component(key, c)
                    low[c] = min(low[c], v)
                    high[c] = max(high[c], v)
                }
            }
            let ranges = (0..<3).map { high[$0] - low[$0] }
            channel = ranges.firstIndex(of: ranges.max() ?? 0) ?? 0
            range = ranges[channel]
        }

        var priority: Int { population * (range + 1) }

        static func component(_ key: Int, _ channel: Int) -> Int { key >> (10 - 5 * channel) & 31 }

        /// Two boxes, split along ``channel`` where half the pixels lie on each side.
        func split(bins: [Bin]) -> (Box, Box) {
            let sorted = keys.sorted {
                let a = Box.component($0, channel), b = Box.component($1, channel)
                return a != b ? a < b : $0 < $1
            }
            var seen = 0, cut = 1
            for (i, key) in sorted.enumerated() {
                seen += bins[key].count
                if seen * 2 >= population {
                    cut = min(max(i + 1, 1), sorted.count - 1)
                    break
                }
            }
            return (Box(keys: Array(sorted[..<cut]), bins: bins), Box(keys: Array(sorted[cut...]), bins: bins))
        }

        /// The mean colour of the box's pixels, rounded half up.
        func mean(bins: [Bin]) -> RGBA {
            var r = 0, g = 0, b = 0, a = 0
            for key in keys {
                r += bins[key].r
                g += bins[key].g
                b += bins[key].b
                a += bins[key].a
            }
            let n = max(population, 1)
            func avg(_ sum: Int) -> UInt8 { UInt8(min(255, (2 * sum + n) / (2 * n))) }
            return RGBA(r: avg(r), g: avg(g), b: avg(b), a: avg(a))
        }
    }
}

extension RGBA {
    /// The four channels in one number, for a stable order.
    var packed: UInt32 { UInt32(r) << 24 | UInt32(g) << 16 | UInt32(b) << 8 | UInt32(a) }
}
