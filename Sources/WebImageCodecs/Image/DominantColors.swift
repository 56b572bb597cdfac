import Foundation

/// Six named swatches of an image — vibrant, light vibrant, dark vibrant, muted, light
/// muted, dark muted — as imgproxy Pro's `/info` `dominant_colors` names them (the
/// swatch targets of Android's `Palette` and Vibrant.js).
///
/// The image is reduced to 64 colours (``ColorPalette``); for each target in that order,
/// the colour not already taken whose HSL saturation and lightness fall inside the
/// target's window and that scores best on nearness to the target's saturation (weight
/// 3) and lightness (weight 6.5) and on population (weight 0.5) becomes the swatch.
/// With `buildMissed`, a swatch no colour fits is made from a found sibling's hue and
/// saturation at the target's lightness. Runs on the caller's thread.
public struct DominantColors: Sendable, Hashable {
    public var vibrant: RGBA?
    public var lightVibrant: RGBA?
    public var darkVibrant: RGBA?
    public var muted: RGBA?
    public var lightMuted: RGBA?
    public var darkMuted: RGBA?

    /// The swatches of `pixels`; those nothing fits stay `nil` unless `buildMissed`.
    public init(_ pixels: PixelBuffer, buildMissed: Bool = false) {
        let swatches = ColorPalette.swatches(pixels, maxColors: 64)
        let maxPopulation = Double(swatches.map(\.population).max() ?? 1)
        var taken = Set<RGBA>()
        var found: [Target: RGBA] = [:]
        for target in Target.allCases {
            var best: (score: Double, color: RGBA)?
            for swatch in swatches where !taken.contains(swatch.color) {
                let hsl = HSL(swatch.color)
                guard target.saturation.range.contains(hsl.s), target.lightness.range.contains(hsl.l) else { continue }
                let score = (3 * (1 - abs(hsl.s - target.saturation.target)) + 6.5 * (1 - abs(hsl.l - target.lightness.target))
                    + 0.5 * Double(swatch.population) / maxPopulation) / 10
                if score > (best?.score ?? -1) { best = (score, swatch.color) }
            }
            if let best {
                found[target] = best.color
                taken.insert(best.color)
            }
        }
        if buildMissed {
            for target in Target.allCases where found[target] == nil {
                if let sibling = target.siblings.lazy.compactMap({ found[$0] }).first {
                    var hsl = HSL(sibling)
                    hsl.l = target.lightness.target
                    found[target] = hsl.rgba
                }
            }
        }
        vibrant = found[.vibrant]
        lightVibrant = found[.lightVibrant]
        darkVibrant = found[.darkVibrant]
        muted = found[.muted]
        lightMuted = found[.lightMuted]
        darkMuted = found[.darkMuted]
    }

    /// The swatches by imgproxy's JSON key (`vibrant`, `light_vibrant`…), found ones only.
    public var named: [(name: String, color: RGBA)] {
        [("vibrant", vibrant), ("light_vibrant", lightVibrant), ("dark_vibrant", darkVibrant), ("muted", muted),
         ("light_muted", lightMuted), ("dark_muted", darkMuted)].compactMap { name, color in color.map { (name, $0) } }
    }

    /// The six targets: a lightness and a saturation, each a target value in a window.
    enum Target: CaseIterable {
        case vibrant, lightVibrant, darkVibrant, muted, lightMuted, darkMuted

        var lightness: (target: Double, range: ClosedRange<Double>) {
            switch self {
            case .vibrant, .muted: (0.5, 0.3...0.7)
            case .lightVibrant, .lightMuted: (0.74, 0.55...1)
            case .darkVibrant, .darkMuted: (0.26, 0...0.45)
            }
        }

        var saturation: (target: Double, range: ClosedRange<Double>) {
            switch self {
            case .vibrant, .lightVibrant, .darkVibrant: (1, 0.35...1)
            case .muted, .lightMuted, .darkMuted: (0.3, 0...0.4)
            }
        }

        /// Where a missing swatch borrows its hue and saturation from, in order.
        var siblings: [Target] {
            switch self {
            case .vibrant: [.darkVibrant, .lightVibrant]
            case .lightVibrant, .darkVibrant: [.vibrant]
            case .muted: [.darkMuted, .lightMuted, .vibrant]
            case .lightMuted, .darkMuted: [.muted, .vibrant]
            }
        }
    }

    /// Hue (0…1), saturation and lightness.
    struct HSL {
        var h: Double, s: Double, l: Double

        init(_ c: RGBA) {
            let r = Double(c.r) / 255, g = Double(c.g) / 255, b = Double(c.b) / 255
            let high = max(r, g, b), low = min(r, g, b)
            l = (high + low) / 2
            let d = high - low
            guard d > 0 else {
                h = 0
                s = 0
                return
            }
            s = l > 0.5 ? d / (2 - high - low) : d / (high + low)
            var hue: Double
            if high == r {
                hue = (g - b) / d + (g < b ? 6 : 0)
            } else if high == g {
                hue = (b - r) / d + 2
            } else {
                hue = (r - g) / d + 4
            }
            hue /= 6
            h = hue
        }

        var rgba: RGBA {
            func channel(_ p: Double, _ q: Double, _ t0: Double) -> UInt8 {
                var t = t0
                if t < 0 { t += 1 }
                if t > 1 { t -= 1 }
                let v: Double
                if t < 1.0 / 6 { v = p + (q - p) * 6 * t } else if t < 0.5 { v = q } else if t < 2.0 / 3 { v = p + (q - p) * (2.0 / 3 - t) * 6 } else { v = p }
                return UInt8(max(0, min(255, (v * 255).rounded())))
            }
            guard s > 0 else {
                let v = UInt8(max(0, min(255, (l * 255).rounded())))
                return RGBA(r: v, g: v, b: v)
            }
            let q = l < 0.5 ? l * (1 + s) : l + s - l * s
            let p = 2 * l - q
            return RGBA(r: channel(p, q, h + 1.0 / 3), g: channel(p, q, h), b: channel(p, q, h - 1.0 / 3))
        }
    }
}
