import Foundation
import Testing
@testable import WebImageCodecs

/// `DominantColors`' `buildMissed`: a swatch nothing fits is made from a found sibling's
/// hue and saturation at the target's lightness (Android Palette's targets: light 0.74,
/// normal 0.5, dark 0.26).
@Suite("Dominant colours: missing swatches built from siblings")
struct DominantColorsTests {
    /// HSL to RGB by the textbook formula (chroma, then the hue's sextant), written here
    /// rather than taken from the library.
    static func rgb(hue: Double, saturation s: Double, lightness l: Double) -> RGBA {
        let c = (1 - abs(2 * l - 1)) * s
        let h = hue * 6
        let x = c * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) = switch Int(h) {
        case 0: (c, x, 0)
        case 1: (x, c, 0)
        case 2: (0, c, x)
        case 3: (0, x, c)
        case 4: (x, 0, c)
        default: (c, 0, x)
        }
        let m = l - c / 2
        func byte(_ v: Double) -> UInt8 { UInt8(max(0, min(255, ((v + m) * 255).rounded()))) }
        return RGBA(r: byte(r), g: byte(g), b: byte(b))
    }

    @Test("one pure red: only vibrant is found; with buildMissed every other swatch is red's hue at its target lightness")
    func buildMissed() throws {
        let red = try #require(PixelBuffer(width: 8, height: 8, bytes: Array([[UInt8]](repeating: [255, 0, 0, 255], count: 64).joined())))
        let found = DominantColors(red)
        #expect(found.vibrant == RGBA(r: 255, g: 0, b: 0))
        #expect(found.named.map(\.name) == ["vibrant"], "saturation 1 fits no muted window, lightness 0.5 no light or dark one")

        let built = DominantColors(red, buildMissed: true)
        let light = Self.rgb(hue: 0, saturation: 1, lightness: 0.74)
        let dark = Self.rgb(hue: 0, saturation: 1, lightness: 0.26)
        #expect(light == RGBA(r: 255, g: 122, b: 122) && dark == RGBA(r: 133, g: 0, b: 0), "the formula itself")
        #expect(built.vibrant == RGBA(r: 255, g: 0, b: 0))
        #expect(built.lightVibrant == light && built.darkVibrant == dark)
        // Muted borrows from vibrant (its muted siblings are missing too) at lightness 0.5,
        // keeping vibrant's saturation; the light and dark muted then borrow from muted.
        #expect(built.muted == Self.rgb(hue: 0, saturation: 1, lightness: 0.5))
        #expect(built.lightMuted == light && built.darkMuted == dark)
        #expect(built.named.count == 6)
    }

    @Test("a found sibling of another hue lends its hue: a dark blue alone builds a vibrant blue")
    func borrowsHue() throws {
        // (0, 0, 102): hue 2/3, saturation 1, lightness 0.2: only darkVibrant fits.
        let navy = try #require(PixelBuffer(width: 4, height: 4, bytes: Array([[UInt8]](repeating: [0, 0, 102, 255], count: 16).joined())))
        let built = DominantColors(navy, buildMissed: true)
        #expect(DominantColors(navy).named.map(\.name) == ["dark_vibrant"])
        #expect(built.darkVibrant == RGBA(r: 0, g: 0, b: 102))
        #expect(built.vibrant == Self.rgb(hue: 2.0 / 3, saturation: 1, lightness: 0.5))
        #expect(built.lightVibrant == Self.rgb(hue: 2.0 / 3, saturation: 1, lightness: 0.74))
    }
}
