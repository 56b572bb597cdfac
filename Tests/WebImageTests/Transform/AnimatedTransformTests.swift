import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageCompat

@Suite("Transforming animated images", .timeLimit(.minutes(1)))
struct AnimatedTransformTests {
    typealias T = TransformTestImages
    static let resize = ImageResizingTransformer(size: PixelSize(width: 4, height: 3), mode: .fill)

    @Test("without transformAnimatedImage an animation is returned untouched")
    func skipped() throws {
        let image = try #require(T.animated())
        #expect(!ImageTransform.shouldTransform(image, transformAnimatedImage: false))
        #expect(ImageTransform.apply(Self.resize, to: image) == image)
    }

    @Test("with transformAnimatedImage every frame is transformed; timing and loops are kept")
    func everyFrame() throws {
        let image = try #require(T.animated())
        let out = try #require(ImageTransform.apply(Self.resize, to: image, transformAnimatedImage: true))
        #expect(out.width == 4 && out.height == 3)
        #expect(out.frames.count == 3)
        #expect(out.frames.map(\.pixels.width) == [4, 4, 4])
        #expect(out.frames.map { $0.pixels[1, 1]?.r } == [50, 100, 150])
        #expect(out.frames.map(\.duration) == image.frames.map(\.duration))
        #expect(out.loopCount == 2 && out.format == .gif)
    }

    @Test("a still image is transformed either way")
    func still() throws {
        let image = T.still(T.filled(8, 6, T.red))
        for flag in [false, true] {
            let out = try #require(ImageTransform.apply(Self.resize, to: image, transformAnimatedImage: flag))
            #expect(out.width == 4 && out.height == 3)
        }
    }

    @Test("a pipeline with rotation keeps all frames the same size")
    func pipelineOnFrames() throws {
        let image = try #require(T.animated())
        let pipeline = ImagePipelineTransformer([ImageRotationTransformer(angle: 30), ImageBlurTransformer(radius: 1)])
        let out = try #require(ImageTransform.apply(pipeline, to: image, transformAnimatedImage: true))
        #expect(out.frames.count == 3)
        #expect(out.frames.allSatisfy { $0.pixels.width == out.width && $0.pixels.height == out.height })
        #expect(out.width > 8)
    }

    @Test("mapFrames fails when frames would differ in size or come out empty")
    func mapFramesGuards() throws {
        let image = try #require(T.animated())
        var n = 0
        let uneven = image.mapFrames { p in
            n += 1
            return p.resampled(width: n, height: n)
        }
        #expect(uneven == nil)
        #expect(image.mapFrames { _ in PixelBuffer(width: 0, height: 0) } == nil)
    }
}
