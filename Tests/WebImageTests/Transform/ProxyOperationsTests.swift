import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageCompat

/// The operations the image proxy is built from (extend, background, pixelate, sharpen,
/// trim, composite and watermark, smart crop), each checked pixel by pixel against a
/// plain implementation written here, the obvious way, in floating point.
@Suite("Proxy operations as transformers", .timeLimit(.minutes(1)))
struct ProxyOperationsTests {
    /// A deterministic RGBA image with varied colour and alpha.
    static func sample(_ width: Int, _ height: Int, alpha: Bool = true) -> PixelBuffer {
        PixelBuffer(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    out[i] = UInt8((x * 37 + y * 11) % 256)
                    out[i + 1] = UInt8((x * 5 + y * 53) % 256)
                    out[i + 2] = UInt8((x * y * 7 + 13) % 256)
                    out[i + 3] = alpha ? UInt8((x * 29 + y * 17 + 40) % 256) : 255
                }
            }
        }
    }

    static func image(_ pixels: PixelBuffer) -> DecodedImage { DecodedImage(pixels: pixels, format: .png) }

    @Test("extending: the image at (left, top), the rest of the colour")
    func extending() throws {
        let src = Self.sample(5, 4)
        let fill = RGBA(r: 9, g: 8, b: 7, a: 6)
        let out = try #require(ImageExtendingTransformer(top: 2, right: 3, bottom: 1, left: 4, color: fill).transform(Self.image(src), forKey: ""))
        #expect(out.width == 12 && out.height == 7)
        for y in 0..<7 {
            for x in 0..<12 {
                let inside = (4..<9).contains(x) && (2..<6).contains(y)
                #expect(out.pixels[x, y] == (inside ? src[x - 4, y - 2] : fill), "(\(x), \(y))")
            }
        }
    }

    @Test("background: over an opaque colour, c·a + bg·(1 − a)")
    func background() throws {
        let src = Self.sample(9, 7)
        let bg = RGBA(r: 250, g: 10, b: 128)
        let out = try #require(ImageBackgroundTransformer(color: bg).transform(Self.image(src), forKey: "")).pixels
        for y in 0..<7 {
            for x in 0..<9 {
                let p = try #require(src[x, y]), q = try #require(out[x, y])
                let a = Double(p.a) / 255
                func mix(_ c: UInt8, _ b: UInt8) -> Double { Double(c) * a + Double(b) * (1 - a) }
                #expect(abs(Double(q.r) - mix(p.r, bg.r)) <= 1 && abs(Double(q.g) - mix(p.g, bg.g)) <= 1 && abs(Double(q.b) - mix(p.b, bg.b)) <= 1)
                #expect(q.a == 255)
            }
        }
    }

    @Test("pixelate: each block is the alpha-weighted mean of its pixels, edge blocks smaller")
    func pixelate() throws {
        let src = Self.sample(10, 7)
        let out = try #require(ImagePixelatingTransformer(size: 4).transform(Self.image(src), forKey: "")).pixels
        for by in stride(from: 0, to: 7, by: 4) {
            for bx in stride(from: 0, to: 10, by: 4) {
                var sum = [0.0, 0, 0], alpha = 0.0, count = 0.0
                for y in by..<min(by + 4, 7) {
                    for x in bx..<min(bx + 4, 10) {
                        let p = try #require(src[x, y])
                        let a = Double(p.a)
                        sum[0] += Double(p.r) * a; sum[1] += Double(p.g) * a; sum[2] += Double(p.b) * a
                        alpha += a
                        count += 1
                    }
                }
                for y in by..<min(by + 4, 7) {
                    for x in bx..<min(bx + 4, 10) {
                        let q = try #require(out[x, y])
                        #expect(abs(Double(q.r) - sum[0] / alpha) <= 1 && abs(Double(q.b) - sum[2] / alpha) <= 1)
                        #expect(abs(Double(q.a) - alpha / count) <= 1)
                    }
                }
            }
        }
        #expect(ImagePixelatingTransformer(size: 1).transform(Self.image(src), forKey: "")?.pixels == src)
    }

    @Test("sharpen: flat areas stay, an edge gains contrast like an unsharp mask with a true gaussian")
    func sharpen() throws {
        // A vertical step from 60 to 180.
        let width = 40, height = 8
        let step = PixelBuffer(width: width, height: height) { out in
            for y in 0..<height { for x in 0..<width {
                let i = (y * width + x) * 4
                let v: UInt8 = x < width / 2 ? 60 : 180
                out[i] = v; out[i + 1] = v; out[i + 2] = v; out[i + 3] = 255
            } }
        }
        let sigma = 1.5
        let out = try #require(ImageSharpeningTransformer(sigma: sigma).transform(Self.image(step), forKey: "")).pixels
        // The plain way: a sampled gaussian along x, then v + 1.5 · (v − blurred).
        let radius = Int((3 * sigma).rounded(.up))
        let kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        for x in 0..<width {
            var blurred = 0.0
            for (k, w) in kernel.enumerated() {
                let xx = min(max(x + k - radius, 0), width - 1)
                blurred += w * Double(xx < width / 2 ? 60 : 180)
            }
            blurred /= total
            let v = Double(x < width / 2 ? 60 : 180)
            let expected = min(max(v + 1.5 * (v - blurred), 0), 255)
            let got = Double(try #require(out[x, 4]).r)
            #expect(abs(got - expected) <= 8, "x \(x): \(got) vs \(expected)")
        }
        #expect(out[2, 2]?.r == 60 && out[width - 3, 2]?.r == 180)
    }

    @Test("median of nine by network equals the sorted middle")
    func median9() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let values = (0..<9).map { _ in Int.random(in: 0...255, using: &generator) }
            let median = PixelBuffer.median9(values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7], values[8])
            #expect(median == values.sorted()[4], "\(values)")
        }
    }

    @Test("trim: the box of what differs from the corner colour after a 3×3 median; equal sides; all background unchanged")
    func trim() throws {
        // White 60×40 with a red 20×10 block at (8, 12) and a lone dark pixel the median removes.
        let width = 60, height = 40
        var pixels = PixelBuffer(width: width, height: height) { out in
            for i in stride(from: 0, to: out.count, by: 4) { out[i] = 255; out[i + 1] = 255; out[i + 2] = 255; out[i + 3] = 255 }
        }
        pixels.withUnsafeMutableBytes { p in
            for y in 12..<22 { for x in 8..<28 { let i = (y * width + x) * 4; p[i + 1] = 0; p[i + 2] = 0 } }
            let lone = (35 * width + 50) * 4
            p[lone] = 0; p[lone + 1] = 0; p[lone + 2] = 0
        }
        let trimmed = try #require(ImageTrimmingTransformer(threshold: 10).transform(Self.image(pixels), forKey: ""))
        #expect(trimmed.width == 20 && trimmed.height == 10)
        #expect(trimmed.pixels[0, 0] == RGBA(r: 255, g: 0, b: 0))
        // equal_hor: left 8, right 32 → both cut by 8: width 44.
        let equal = try #require(ImageTrimmingTransformer(threshold: 10, equalHorizontal: true, equalVertical: true)
            .transform(Self.image(pixels), forKey: ""))
        #expect(equal.width == 44 && equal.height == 16)
        let blank = PixelBuffer(width: 10, height: 10)
        #expect(ImageTrimmingTransformer(threshold: 10).transform(Self.image(blank), forKey: "")?.pixels == blank)
    }

    @Test("composite: straight-alpha over with opacity, clipped at the edges")
    func composite() throws {
        let base = Self.sample(12, 9), mark = Self.sample(5, 6)
        let out = base.composited(mark, x: 9, y: -2, opacity: 0.6)
        for y in 0..<9 {
            for x in 0..<12 {
                let b = try #require(base[x, y])
                guard let m = mark[x - 9, y + 2] else {
                    #expect(out[x, y] == b)
                    continue
                }
                let sa = Double(m.a) / 255 * 0.6, da = Double(b.a) / 255
                let oa = sa + da * (1 - sa)
                func c(_ s: UInt8, _ d: UInt8) -> Double { oa == 0 ? 0 : (Double(s) * sa + Double(d) * da * (1 - sa)) / oa }
                let q = try #require(out[x, y])
                #expect(abs(Double(q.r) - c(m.r, b.r)) <= 2 && abs(Double(q.g) - c(m.g, b.g)) <= 2, "(\(x), \(y))")
                #expect(abs(Double(q.a) - oa * 255) <= 2)
            }
        }
    }

    @Test("watermark tiling: an odd number of tiles, centred, spacing split around each")
    func tiling() throws {
        let base = PixelBuffer(width: 100, height: 50)
        let mark = PixelBuffer(width: 10, height: 10) { out in
            for i in stride(from: 0, to: out.count, by: 4) { out[i] = 255; out[i + 1] = 0; out[i + 2] = 0; out[i + 3] = 255 }
        }
        let out = try #require(ImageWatermarkTransformer(mark: mark, opacity: 1, placement: .tiled(spacingX: 20, spacingY: 0))
            .transform(Self.image(base), forKey: "")).pixels
        // Tiles of 30×10: 4 across → 5 (odd), 5 down (odd); plane 150×50, window from x = 25.
        // Tile k's mark spans [30k + 10 − 25, +10): x = −15, 15, 45, 75, 105.
        for x in 0..<100 {
            let covered = [15, 45, 75].contains { (($0)..<($0 + 10)).contains(x) }
            #expect((out[x, 5]?.a == 255) == covered, "x \(x)")
        }
    }

    @Test("smart crop: the window holds the busy, colourful region, not the centre")
    func attention() throws {
        // A flat grey 300×100 with a saturated checkerboard at the right.
        let width = 300, height = 100
        let pixels = PixelBuffer(width: width, height: height) { out in
            for y in 0..<height { for x in 0..<width {
                let i = (y * width + x) * 4
                let busy = x >= 230 && (x / 4 + y / 4) % 2 == 0
                out[i] = busy ? 230 : 120; out[i + 1] = busy ? 30 : 120; out[i + 2] = busy ? 40 : 120; out[i + 3] = 255
            } }
        }
        let window = pixels.attentionWindow(size: PixelSize(width: 100, height: 100))
        #expect(window.x >= 190, "\(window)")
        let cropped = try #require(ImageSmartCroppingTransformer(size: PixelSize(width: 100, height: 100)).transform(Self.image(pixels), forKey: ""))
        #expect(cropped.width == 100 && cropped.height == 100)
    }
}
