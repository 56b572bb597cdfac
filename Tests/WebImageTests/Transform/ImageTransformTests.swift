import Testing
@testable import WebImage
@testable import WebImageCodecs

/// WebImage's own spelling of the built-ins, without WebImageCompat: each factory's key is
/// the documented string (written out here, not built from the code's helpers), and a few
/// pixels that say the factory does what its name says.
@Suite("ImageTransform: the built-ins' own spelling", .timeLimit(.minutes(1)))
struct ImageTransformTests {
    typealias T = TransformTestImages

    @Test("every factory's key is the documented one (the keys earlier releases cached under)")
    func documentedKeys() {
        let red = RGBA(r: 255, g: 0, b: 0, a: 128)
        let expected: [(ImageTransform, String)] = [
            (.resize(to: PixelSize(width: 400, height: 300), mode: .aspectFill), "ImageResizingTransformer(size:400x300,mode:aspectFill)"),
            (.resize(to: PixelSize(width: 4, height: 3)), "ImageResizingTransformer(size:4x3,mode:fill)"),
            (.crop(to: PixelRect(x: 10, y: 20, width: 100, height: 50)), "ImageCroppingTransformer(rect:10,20,100x50)"),
            (.smartCrop(to: PixelSize(width: 8, height: 9)), "ImageSmartCroppingTransformer(size:8x9)"),
            (.extend(top: 1, right: -2, bottom: 3, left: 4, color: red), "ImageExtendingTransformer(insets:1.0.3.4,color:ff000080)"),
            (.flip(horizontal: true, vertical: false), "ImageFlippingTransformer(horizontal:true,vertical:false)"),
            (.rotate(degrees: 22.5), "ImageRotationTransformer(angle:22.5,fitSize:true)"),
            (.trim(threshold: 10, equalVertical: true), "ImageTrimmingTransformer(threshold:10,color:auto,equal:false.true)"),
            (.background(red), "ImageBackgroundTransformer(color:ff0000ff)"),
            (.blur(radius: 2.5), "ImageBlurTransformer(radius:2.5)"),
            (.pixelate(size: -3), "ImagePixelatingTransformer(size:0)"),
            (.roundCorners(radius: 12, corners: [.topLeft, .topRight]),
             "ImageRoundCornerTransformer(radius:12,corners:topLeft+topRight,borderWidth:0,borderColor:00000000)"),
            (.sharpen(sigma: 0.5), "ImageSharpeningTransformer(sigma:0.5)"),
            (.tint(red), "ImageTintTransformer(color:ff000080)"),
        ]
        for (transform, key) in expected {
            #expect(transform.transformerKey == key)
        }
        let pipeline = ImageTransform.pipeline([ImageTransform.blur(radius: 1), ImageTransform.pixelate(size: 2)])
        #expect(pipeline.transformerKey == "ImageBlurTransformer(radius:1)-ImagePixelatingTransformer(size:2)")
        // FNV-1a 64 of the mark's 4 bytes (0, 0, 0, 0), worked out by hand from its offset basis
        // and prime: each zero byte multiplies the hash by the prime.
        var fnv: UInt64 = 0xcbf2_9ce4_8422_2325
        for _ in 0..<4 { fnv = fnv &* 0x100_0000_01b3 }
        let mark = T.filled(1, 1, T.clear)
        #expect(ImageTransform.watermark(mark, opacity: 0.5, placement: .tiled(spacingX: 2, spacingY: 3)).transformerKey
            == "ImageWatermarkTransformer(mark:1x1.\(String(fnv, radix: 16)),opacity:0.5,tiled:2.3)")
    }

    @Test("a factory's pixels: a crop keeps its window, a pipeline runs in order, a bad radius fails")
    func pixels() throws {
        let image = T.still(T.coordinates(6, 4))
        let cropped = try #require(ImageTransform.crop(to: PixelRect(x: 2, y: 1, width: 3, height: 2)).transform(image, forKey: ""))
        #expect(cropped.width == 3 && cropped.height == 2)
        #expect(cropped.pixels[0, 0] == RGBA(r: 2, g: 1, b: 7))
        let flipped = try #require(ImageTransform.pipeline([
            ImageTransform.crop(to: PixelRect(x: 0, y: 0, width: 2, height: 2)), ImageTransform.flip(horizontal: true, vertical: false),
        ]).transform(image, forKey: ""))
        #expect(flipped.pixels[0, 0] == RGBA(r: 1, g: 0, b: 7))
        #expect(ImageTransform.blur(radius: -1).transform(image, forKey: "") == nil)
        #expect(ImageTransform.resize(to: PixelSize(width: 0, height: 3)).transform(image, forKey: "") == nil)
    }
}
