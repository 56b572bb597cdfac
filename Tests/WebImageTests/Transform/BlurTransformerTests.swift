import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageCompat

@Suite("ImageBlurTransformer", .timeLimit(.minutes(1)))
struct BlurTransformerTests {
    typealias T = TransformTestImages

    @Test("a single white pixel spreads symmetrically and keeps its energy", arguments: [1.0, 2.0, 3.5])
    func impulse(radius: Double) throws {
        let size = 41, c = 20
        let p = T.setting(T.filled(size, size, RGBA(r: 0, g: 0, b: 0)), c, c, RGBA(r: 255, g: 255, b: 255))
        let out = try #require(ImageBlurTransformer(radius: radius).transform(T.still(p), forKey: ""))
        #expect(out.width == size && out.height == size)
        let red = { (x: Int, y: Int) in Int(out.pixels[x, y]?.r ?? 0) }
        #expect(red(c, c) < 255 && red(c, c) > 0)
        #expect(red(c + 1, c) > 0)
        for d in 1...6 {
            let ring = [red(c + d, c), red(c - d, c), red(c, c + d), red(c, c - d)]
            #expect(Set(ring).count == 1, "distance \(d): \(ring)")
            #expect(red(c + d, c) <= red(c + d - 1, c))
        }
        #expect(red(c + 1, c + 1) == red(c - 1, c - 1))
        let total = stride(from: 0, to: out.pixels.bytes.count, by: 4).reduce(0) { $0 + Int(out.pixels.bytes[$1]) }
        #expect(abs(total - 255) <= 26, "total \(total)")
        #expect(out.pixels[0, 0] == RGBA(r: 0, g: 0, b: 0))
        #expect(out.pixels.hasAlpha == false)
    }

    @Test("transparent pixels do not darken the blurred colour")
    func alphaAware() throws {
        var p = T.filled(20, 10, T.clear)
        for y in 0..<10 { for x in 0..<10 { p = T.setting(p, x, y, T.red) } }
        let out = try #require(ImageBlurTransformer(radius: 2).transform(T.still(p), forKey: ""))
        let edge = try #require(out.pixels[10, 5])
        #expect(edge.a > 0 && edge.a < 255)
        #expect(edge.r == 255 && edge.g == 0)
        #expect(out.pixels[19, 5]?.a == 0)
        #expect(out.pixels[0, 5] == T.red)
    }

    @Test("a large radius on a larger image finishes and flattens it")
    func largeRadius() throws {
        let out = try #require(ImageBlurTransformer(radius: 500).transform(T.still(T.coordinates(200, 150)), forKey: ""))
        let a = try #require(out.pixels[0, 0]), b = try #require(out.pixels[199, 149])
        #expect(abs(Int(a.r) - Int(b.r)) < 40)
    }

    @Test("radius 0 changes nothing; a negative radius fails")
    func edges() {
        let image = T.still(T.coordinates(5, 5))
        #expect(ImageBlurTransformer(radius: 0).transform(image, forKey: "") == image)
        #expect(ImageBlurTransformer(radius: -1).transform(image, forKey: "") == nil)
    }

    @Test("key names the radius")
    func key() {
        #expect(ImageBlurTransformer(radius: 2.5).transformerKey == "ImageBlurTransformer(radius:2.5)")
        #expect(ImageBlurTransformer(radius: 3).transformerKey == "ImageBlurTransformer(radius:3)")
    }
}
