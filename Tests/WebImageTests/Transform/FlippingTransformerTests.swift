import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageCompat

@Suite("ImageFlippingTransformer", .timeLimit(.minutes(1)))
struct FlippingTransformerTests {
    typealias T = TransformTestImages

    @Test("moves the top-left pixel to the mirrored corner", arguments: [
        (true, false, 4, 0),
        (false, true, 0, 2),
        (true, true, 4, 2),
    ])
    func corners(horizontal: Bool, vertical: Bool, x: Int, y: Int) throws {
        let image = T.still(T.coordinates(5, 3))
        let out = try #require(ImageFlippingTransformer(horizontal: horizontal, vertical: vertical)
            .transform(image, forKey: ""))
        #expect(out.width == 5 && out.height == 3)
        #expect(out.pixels[x, y] == RGBA(r: 0, g: 0, b: 7))
        // The middle of the centre row and column stays put on its own axis.
        #expect(out.pixels[2, 1]?.r == 2 && out.pixels[2, 1]?.g == 1)
    }

    @Test("no axis leaves the image as it was")
    func identity() throws {
        let image = T.still(T.coordinates(5, 3))
        #expect(ImageFlippingTransformer(horizontal: false, vertical: false).transform(image, forKey: "") == image)
    }

    @Test("key names both axes")
    func key() {
        #expect(ImageFlippingTransformer(horizontal: true, vertical: false).transformerKey
            == "ImageFlippingTransformer(horizontal:true,vertical:false)")
    }
}
