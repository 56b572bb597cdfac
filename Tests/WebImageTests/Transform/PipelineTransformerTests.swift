import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageCompat

@Suite("ImagePipelineTransformer and transformer keys", .timeLimit(.minutes(1)))
struct PipelineTransformerTests {
    typealias T = TransformTestImages

    static let all: [any ImageTransformer] = [
        ImageResizingTransformer(size: PixelSize(width: 400, height: 300), mode: .aspectFit),
        ImageCroppingTransformer(rect: PixelRect(x: 1, y: 2, width: 3, height: 4)),
        ImageFlippingTransformer(horizontal: false, vertical: true),
        ImageRotationTransformer(angle: 0.1, fitSize: false),
        ImageRoundCornerTransformer(radius: 4, corners: .topRight, borderWidth: 1, borderColor: T.red),
        ImageTintTransformer(color: RGBA(r: 1, g: 2, b: 3, a: 4)),
        ImageBlurTransformer(radius: 1e-3),
    ]

    @Test("the key joins member keys with '-' in order")
    func keyJoining() {
        let a = ImageResizingTransformer(size: PixelSize(width: 200, height: 200), mode: .aspectFill)
        let b = ImageRoundCornerTransformer(radius: 10)
        #expect(ImagePipelineTransformer([a, b]).transformerKey == a.transformerKey + "-" + b.transformerKey)
        #expect(ImagePipelineTransformer([b, a]).transformerKey != ImagePipelineTransformer([a, b]).transformerKey)
        #expect(ImagePipelineTransformer([]).transformerKey == "")
    }

    @Test("members run first to last")
    func order() throws {
        let crop = ImageCroppingTransformer(rect: PixelRect(x: 0, y: 0, width: 2, height: 2))
        let flip = ImageFlippingTransformer(horizontal: true, vertical: false)
        let image = T.still(T.coordinates(6, 4))
        let cropThenFlip = try #require(ImagePipelineTransformer([crop, flip]).transform(image, forKey: ""))
        let flipThenCrop = try #require(ImagePipelineTransformer([flip, crop]).transform(image, forKey: ""))
        #expect(cropThenFlip.pixels[0, 0] == RGBA(r: 1, g: 0, b: 7))
        #expect(flipThenCrop.pixels[0, 0] == RGBA(r: 5, g: 0, b: 7))
    }

    @Test("a failing member fails the pipeline; an empty pipeline changes nothing")
    func failure() {
        let image = T.still(T.coordinates(6, 4))
        let outside = ImageCroppingTransformer(rect: PixelRect(x: 50, y: 50, width: 2, height: 2))
        #expect(ImagePipelineTransformer([ImageTintTransformer(color: T.red), outside]).transform(image, forKey: "") == nil)
        #expect(ImagePipelineTransformer([]).transform(image, forKey: "") == image)
    }

    @Test("keys are stable, distinct per parameters and use only file-name-safe ASCII")
    func keyProperties() {
        let keys = Self.all.map(\.transformerKey)
        #expect(keys == Self.all.map(\.transformerKey))
        #expect(Set(keys).count == keys.count)
        #expect(keys[3] == "ImageRotationTransformer(angle:0.1,fitSize:false)")
        #expect(keys[6] == "ImageBlurTransformer(radius:0.001)")
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789():,.-+")
        for key in keys + [ImagePipelineTransformer(Self.all).transformerKey] {
            #expect(key.allSatisfy(allowed.contains), "\(key)")
        }
        #expect(ImageBlurTransformer(radius: 2).transformerKey != ImageBlurTransformer(radius: 2.000001).transformerKey)
        #expect(ImageRotationTransformer(angle: -0.0).transformerKey == ImageRotationTransformer(angle: 0).transformerKey)
    }
}
