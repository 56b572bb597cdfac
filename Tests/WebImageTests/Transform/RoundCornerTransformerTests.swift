import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageCompat

@Suite("ImageRoundCornerTransformer", .timeLimit(.minutes(1)))
struct RoundCornerTransformerTests {
    typealias T = TransformTestImages

    @Test("corners become transparent, centre and edge midpoints stay, the curve is anti-aliased")
    func allCorners() throws {
        let out = try #require(ImageRoundCornerTransformer(radius: 8)
            .transform(T.still(T.filled(20, 20, T.red)), forKey: ""))
        #expect(out.width == 20 && out.height == 20)
        for (x, y) in [(0, 0), (19, 0), (0, 19), (19, 19)] { #expect(out.pixels[x, y]?.a == 0) }
        #expect(out.pixels[10, 10] == T.red)
        #expect(out.pixels[10, 0] == T.red)
        #expect(out.pixels[0, 10] == T.red)
        let diagonal = (0..<8).compactMap { out.pixels[$0, $0]?.a }
        #expect(diagonal.contains { $0 > 0 && $0 < 255 })
        #expect(diagonal == diagonal.sorted())
    }

    @Test("only the chosen corners are rounded")
    func someCorners() throws {
        let out = try #require(ImageRoundCornerTransformer(radius: 8, corners: [.topLeft, .bottomRight])
            .transform(T.still(T.filled(20, 20, T.red)), forKey: ""))
        #expect(out.pixels[0, 0]?.a == 0)
        #expect(out.pixels[19, 19]?.a == 0)
        #expect(out.pixels[19, 0] == T.red)
        #expect(out.pixels[0, 19] == T.red)
    }

    @Test("a border paints the edge band over the image")
    func border() throws {
        let blue = RGBA(r: 0, g: 0, b: 255)
        let out = try #require(ImageRoundCornerTransformer(radius: 0, borderWidth: 2, borderColor: blue)
            .transform(T.still(T.filled(20, 20, T.red)), forKey: ""))
        #expect(out.pixels[0, 10] == blue)
        #expect(out.pixels[1, 10] == blue)
        #expect(out.pixels[10, 19] == blue)
        #expect(out.pixels[2, 10] == T.red)
        #expect(out.pixels[10, 10] == T.red)
    }

    @Test("a radius beyond half the side makes a circle")
    func circle() throws {
        let out = try #require(ImageRoundCornerTransformer(radius: 1000)
            .transform(T.still(T.filled(20, 20, T.red)), forKey: ""))
        #expect(out.pixels[2, 2]?.a == 0)
        #expect(out.pixels[10, 0]?.a ?? 0 > 200)
        #expect(out.pixels[10, 10] == T.red)
    }

    @Test("negative or non-finite sizes fail")
    func invalid() {
        let image = T.still(T.filled(4, 4, T.red))
        #expect(ImageRoundCornerTransformer(radius: -1).transform(image, forKey: "") == nil)
        #expect(ImageRoundCornerTransformer(radius: 2, borderWidth: .infinity).transform(image, forKey: "") == nil)
    }

    @Test("key names radius, corners and border")
    func key() {
        #expect(ImageRoundCornerTransformer(radius: 8).transformerKey
            == "ImageRoundCornerTransformer(radius:8,corners:all,borderWidth:0,borderColor:00000000)")
        #expect(ImageRoundCornerTransformer(radius: 8, corners: [.bottomRight, .topLeft], borderWidth: 1.5,
                                            borderColor: RGBA(r: 0, g: 0, b: 255)).transformerKey
            == "ImageRoundCornerTransformer(radius:8,corners:topLeft+bottomRight,borderWidth:1.5,borderColor:0000ffff)")
        #expect(ImageRoundCornerTransformer(radius: 8, corners: []).transformerKey.contains("corners:none"))
    }
}
