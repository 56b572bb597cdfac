import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageCompat

@Suite("ImageCroppingTransformer", .timeLimit(.minutes(1)))
struct CroppingTransformerTests {
    typealias T = TransformTestImages

    @Test("picks the requested region")
    func region() throws {
        let image = T.still(T.coordinates(20, 10))
        let out = try #require(ImageCroppingTransformer(rect: PixelRect(x: 5, y: 2, width: 4, height: 3))
            .transform(image, forKey: ""))
        #expect(out.width == 4 && out.height == 3)
        #expect(out.pixels[0, 0] == RGBA(r: 5, g: 2, b: 7))
        #expect(out.pixels[3, 2] == RGBA(r: 8, g: 4, b: 7))
    }

    @Test("a rectangle reaching past the image is clipped to it")
    func clipped() throws {
        let image = T.still(T.coordinates(20, 10))
        let out = try #require(ImageCroppingTransformer(rect: PixelRect(x: -3, y: 8, width: 10, height: 50))
            .transform(image, forKey: ""))
        #expect(out.width == 7 && out.height == 2)
        #expect(out.pixels[0, 0] == RGBA(r: 0, g: 8, b: 7))
        #expect(out.pixels[6, 1] == RGBA(r: 6, g: 9, b: 7))
    }

    @Test("nothing inside the image, or extreme values, give nil", arguments: [
        PixelRect(x: 20, y: 0, width: 5, height: 5),
        PixelRect(x: -10, y: 0, width: 10, height: 5),
        PixelRect(x: 0, y: 0, width: 0, height: 5),
        PixelRect(x: Int.min, y: Int.min, width: 1, height: 1),
    ])
    func outside(rect: PixelRect) {
        #expect(ImageCroppingTransformer(rect: rect).transform(T.still(T.coordinates(20, 10)), forKey: "") == nil)
    }

    @Test("a huge rectangle starting inside keeps the rest of the image")
    func hugeRect() throws {
        let out = try #require(ImageCroppingTransformer(rect: PixelRect(x: 2, y: 3, width: .max, height: .max))
            .transform(T.still(T.coordinates(20, 10)), forKey: ""))
        #expect(out.width == 18 && out.height == 7)
    }

    @Test("key names the rectangle")
    func key() {
        #expect(ImageCroppingTransformer(rect: PixelRect(x: 10, y: -20, width: 100, height: 50)).transformerKey
            == "ImageCroppingTransformer(rect:10,-20,100x50)")
    }
}
