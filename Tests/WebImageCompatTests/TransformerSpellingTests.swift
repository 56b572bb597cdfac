import Testing
import WebImage
import WebImageCodecs
import WebImageCompat

/// SDWebImage's transformer types are spellings of ``ImageTransform`` built-ins: each has
/// the built-in's key and gives its pixels, so either spelling finds the other's cached
/// results. The pixels and keys themselves are tested in WebImageTests' Transform suites.
@Suite("SDWebImage's transformer types spell ImageTransform's built-ins", .timeLimit(.minutes(1)))
struct TransformerSpellingTests {
    /// An opaque 12×8 image whose pixel (x, y) is (20x, 30y, 7).
    static let image: DecodedImage = {
        let pixels = PixelBuffer(width: 12, height: 8) { p in
            for y in 0..<8 {
                for x in 0..<12 {
                    let i = (y * 12 + x) * 4
                    p[i] = UInt8(20 * x); p[i + 1] = UInt8(30 * y); p[i + 2] = 7; p[i + 3] = 255
                }
            }
        }
        return DecodedImage(pixels: pixels, format: .png)
    }()

    static let tint = RGBA(r: 10, g: 200, b: 30, a: 100)
    static let mark = PixelBuffer(width: 2, height: 2) { p in for i in 0..<p.count { p[i] = 255 } }

    static let pairs: [(any ImageTransformer, ImageTransform)] = [
        (ImageResizingTransformer(size: PixelSize(width: 5, height: 7), mode: .aspectFit),
         .resize(to: PixelSize(width: 5, height: 7), mode: .aspectFit)),
        (ImageCroppingTransformer(rect: PixelRect(x: 1, y: 2, width: 5, height: 4)), .crop(to: PixelRect(x: 1, y: 2, width: 5, height: 4))),
        (ImageSmartCroppingTransformer(size: PixelSize(width: 4, height: 4)), .smartCrop(to: PixelSize(width: 4, height: 4))),
        (ImageExtendingTransformer(top: 1, right: 2, bottom: 0, left: 3, color: tint),
         .extend(top: 1, right: 2, bottom: 0, left: 3, color: tint)),
        (ImageFlippingTransformer(horizontal: true, vertical: true), .flip(horizontal: true, vertical: true)),
        (ImageRotationTransformer(angle: 30, fitSize: false), .rotate(degrees: 30, fitSize: false)),
        (ImageTrimmingTransformer(threshold: 5, color: tint, equalHorizontal: true),
         .trim(threshold: 5, color: tint, equalHorizontal: true)),
        (ImageBackgroundTransformer(color: tint), .background(tint)),
        (ImageBlurTransformer(radius: 1.5), .blur(radius: 1.5)),
        (ImagePixelatingTransformer(size: 3), .pixelate(size: 3)),
        (ImageRoundCornerTransformer(radius: 3, corners: .bottomLeft, borderWidth: 1, borderColor: tint),
         .roundCorners(radius: 3, corners: .bottomLeft, borderWidth: 1, borderColor: tint)),
        (ImageSharpeningTransformer(sigma: 0.8), .sharpen(sigma: 0.8)),
        (ImageTintTransformer(color: tint), .tint(tint)),
        (ImageWatermarkTransformer(mark: mark, opacity: 0.5, placement: .at(x: 3, y: 1)),
         .watermark(mark, opacity: 0.5, placement: .at(x: 3, y: 1))),
        (ImagePipelineTransformer([ImageBlurTransformer(radius: 1), ImageTintTransformer(color: tint)]),
         .pipeline([ImageTransform.blur(radius: 1), ImageTransform.tint(tint)])),
    ]

    @Test("each type's key and pixels are its built-in's")
    func sameKeyAndPixels() throws {
        for (spelling, builtIn) in Self.pairs {
            #expect(spelling.transformerKey == builtIn.transformerKey)
            let ours = try #require(spelling.transform(Self.image, forKey: "k"), "\(spelling.transformerKey)")
            let theirs = try #require(builtIn.transform(Self.image, forKey: "k"), "\(builtIn.transformerKey)")
            #expect(ours.width == theirs.width && ours.height == theirs.height, "\(builtIn.transformerKey)")
            #expect(ours.pixels.bytes == theirs.pixels.bytes, "\(builtIn.transformerKey)")
        }
        #expect(Set(Self.pairs.map { $0.1.transformerKey }).count == Self.pairs.count)
    }

    @Test("a type's properties are read when it runs: changing one changes the key and the result")
    func propertiesAreLive() throws {
        var blur = ImageBlurTransformer(radius: 1)
        let before = blur.transformerKey
        blur.radius = 2
        #expect(blur.transformerKey == "ImageBlurTransformer(radius:2)" && before == "ImageBlurTransformer(radius:1)")
        var trim = ImageTrimmingTransformer(threshold: 0)
        trim.equalHorizontal = true
        // Foreground 2…5 of 10 columns: 2 on the left, 4 on the right; equal cuts keep 2…7.
        #expect(trim.window(for: PixelRect(x: 2, y: 0, width: 4, height: 1), width: 10, height: 1)
            == PixelRect(x: 2, y: 0, width: 6, height: 1))
    }
}
