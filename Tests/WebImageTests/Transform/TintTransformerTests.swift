import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageCompat

@Suite("ImageTintTransformer", .timeLimit(.minutes(1)))
struct TintTransformerTests {
    typealias T = TransformTestImages

    @Test("an opaque tint colours opaque pixels and leaves transparent ones transparent")
    func opaqueTint() throws {
        var p = T.filled(3, 1, RGBA(r: 255, g: 255, b: 255))
        p = T.setting(p, 1, 0, T.clear)
        p = T.setting(p, 2, 0, RGBA(r: 0, g: 255, b: 0, a: 100))
        let out = try #require(ImageTintTransformer(color: T.red).transform(T.still(p), forKey: ""))
        #expect(out.pixels[0, 0] == T.red)
        #expect(out.pixels[1, 0]?.a == 0)
        #expect(out.pixels[2, 0] == RGBA(r: 255, g: 0, b: 0, a: 100))
    }

    @Test("a half-transparent tint blends halfway")
    func halfTint() throws {
        let out = try #require(ImageTintTransformer(color: RGBA(r: 255, g: 0, b: 0, a: 128))
            .transform(T.still(T.filled(2, 2, RGBA(r: 0, g: 0, b: 200))), forKey: ""))
        #expect(out.pixels[1, 1] == RGBA(r: 128, g: 0, b: 100, a: 255))
    }

    @Test("a fully transparent tint changes nothing")
    func clearTint() throws {
        let image = T.still(T.coordinates(4, 4))
        #expect(ImageTintTransformer(color: T.clear).transform(image, forKey: "") == image)
    }

    @Test("key is the colour in hex")
    func key() {
        #expect(ImageTintTransformer(color: RGBA(r: 255, g: 0, b: 10, a: 128)).transformerKey
            == "ImageTintTransformer(color:ff000a80)")
    }
}
