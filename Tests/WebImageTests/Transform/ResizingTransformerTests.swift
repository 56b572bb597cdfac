import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageCompat

@Suite("ImageResizingTransformer", .timeLimit(.minutes(1)))
struct ResizingTransformerTests {
    typealias T = TransformTestImages

    @Test("each mode gives the documented output size", arguments: [
        (ImageResizingTransformer.Mode.fill, 400, 300),
        (.aspectFit, 400, 200),
        (.aspectFill, 400, 300),
    ])
    func sizes(mode: ImageResizingTransformer.Mode, width: Int, height: Int) throws {
        // A 2:1 source into a 4:3 box.
        let image = T.still(T.filled(200, 100, T.red))
        let out = try #require(ImageResizingTransformer(size: PixelSize(width: 400, height: 300), mode: mode)
            .transform(image, forKey: "k"))
        #expect(out.width == width && out.height == height)
        #expect(out.pixels.width == width && out.pixels.height == height)
        #expect(out.pixels[width / 2, height / 2] == T.red)
    }

    @Test("aspect fit limited by height keeps the ratio")
    func aspectFitTall() throws {
        let image = T.still(T.filled(100, 400, T.red))
        let out = try #require(ImageResizingTransformer(size: PixelSize(width: 300, height: 200), mode: .aspectFit)
            .transform(image, forKey: ""))
        #expect(out.width == 50 && out.height == 200)
    }

    @Test("aspect fill crops the centre, not an edge")
    func aspectFillCropsCentre() throws {
        // Left third blue, middle third green, right third red; a square fill keeps the green.
        var p = T.filled(90, 30, RGBA(r: 0, g: 255, b: 0))
        for y in 0..<30 {
            for x in 0..<30 { p = T.setting(p, x, y, RGBA(r: 0, g: 0, b: 255)) }
            for x in 60..<90 { p = T.setting(p, x, y, T.red) }
        }
        let out = try #require(ImageResizingTransformer(size: PixelSize(width: 10, height: 10), mode: .aspectFill)
            .transform(T.still(p), forKey: ""))
        #expect(out.width == 10 && out.height == 10)
        #expect(out.pixels[0, 5] == RGBA(r: 0, g: 255, b: 0))
        #expect(out.pixels[9, 5] == RGBA(r: 0, g: 255, b: 0))
    }

    @Test("fill stretches: a left/right split stays split at the middle")
    func fillStretches() throws {
        var p = T.filled(4, 4, T.red)
        for y in 0..<4 { for x in 2..<4 { p = T.setting(p, x, y, RGBA(r: 0, g: 0, b: 255)) } }
        let out = try #require(ImageResizingTransformer(size: PixelSize(width: 2, height: 8), mode: .fill)
            .transform(T.still(p), forKey: ""))
        #expect(out.width == 2 && out.height == 8)
        // Lanczos3 halving the width reaches across the edge: each side keeps ~94 % of its
        // colour (a box filter would keep all of it). Stretched, not cropped: both colours stay.
        for y in [0, 7] {
            let left = try #require(out.pixels[0, y]), right = try #require(out.pixels[1, y])
            #expect(left.r >= 230 && left.b <= 25 && left.g == 0, "\(left)")
            #expect(right.b >= 230 && right.r <= 25 && right.g == 0, "\(right)")
        }
    }

    @Test("empty and oversized targets fail instead of allocating")
    func badSizes() {
        let image = T.still(T.filled(4, 4, T.red))
        #expect(ImageResizingTransformer(size: PixelSize(width: 0, height: 10)).transform(image, forKey: "") == nil)
        #expect(ImageResizingTransformer(size: PixelSize(width: 100_000, height: 100_000)).transform(image, forKey: "") == nil)
    }

    @Test("key names size and mode")
    func key() {
        #expect(ImageResizingTransformer(size: PixelSize(width: 400, height: 300), mode: .aspectFill).transformerKey
            == "ImageResizingTransformer(size:400x300,mode:aspectFill)")
    }
}
