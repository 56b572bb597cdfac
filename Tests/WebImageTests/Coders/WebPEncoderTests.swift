import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("WebPCoder: encoding lossy, lossless and animated WebP", .timeLimit(.minutes(2)))
struct WebPEncoderTests {
    let coder = WebPCoder()

    @Test("lossless round trip gives back every byte, colour under transparent pixels included")
    func losslessExact() throws {
        let source = WebPSamples.gradient(width: 67, height: 41)
        let data = try coder.encode(DecodedImage(pixels: source, format: .png), as: .webp, options: .init(lossless: true))
        #expect(ImageFormat.detect(data) == .webp)
        let decoded = try coder.decode(data, options: ImageDecodeOptions())
        #expect(decoded.pixels == source)

        let photo = try coder.decode(Corpus.data("webp/wuffs/bricks-color.lossless.webp"), options: ImageDecodeOptions())
        let again = try coder.decode(coder.encode(photo, as: .webp, options: .init(lossless: true)), options: ImageDecodeOptions())
        #expect(again.pixels == photo.pixels)
    }

    @Test("lossy round trip stays close, keeps alpha, and lower quality makes smaller files")
    func lossy() throws {
        let photo = try coder.decode(Corpus.data("webp/pillow/flower.webp"), options: ImageDecodeOptions())
        let high = try coder.encode(photo, as: .webp, options: .init(quality: 0.9))
        let low = try coder.encode(photo, as: .webp, options: .init(quality: 0.1))
        #expect(low.count < high.count)
        let decoded = try coder.decode(high, options: ImageDecodeOptions())
        #expect(decoded.width == photo.width && decoded.height == photo.height)
        let diff = try #require(WebPSamples.meanDifference(decoded.pixels, photo.pixels))
        #expect(diff < 4, "quality 0.9 differs by \(diff) per channel")

        let transparent = try coder.decode(Corpus.data("webp/pillow/transparent.webp"), options: ImageDecodeOptions())
        let lossyAlpha = try coder.decode(coder.encode(transparent, as: .webp, options: .init(quality: 0.8)),
                                          options: ImageDecodeOptions())
        let a = transparent.pixels.bytes, b = lossyAlpha.pixels.bytes
        let alphaDiff = stride(from: 3, to: a.count, by: 4).map { abs(Int(a[$0]) - Int(b[$0])) }.max() ?? 255
        #expect(alphaDiff <= 2, "alpha changed by up to \(alphaDiff)")
    }

    @Test("animated round trip keeps frames, durations, loop count and (lossless) pixels")
    func animatedRoundTrip() throws {
        let durations = [0.05, 0.1, 0.2, 0.08]
        let frames = durations.enumerated().map { i, duration in
            ImageFrame(pixels: WebPSamples.gradient(width: 48, height: 30, seed: i + 1), duration: duration)
        }
        let source = try #require(DecodedImage(frames: frames, format: .gif, loopCount: 3))
        let data = try coder.encode(source, as: .webp, options: .init(lossless: true))
        let decoded = try coder.decode(data, options: ImageDecodeOptions())
        #expect(decoded.frames.count == 4)
        #expect(decoded.loopCount == 3)
        #expect(decoded.frames.map(\.duration) == durations)
        #expect(decoded.frames.map(\.pixels) == frames.map(\.pixels))

        let lossy = try coder.decode(coder.encode(source, as: .webp, options: .init(quality: 0.8)), options: ImageDecodeOptions())
        #expect(lossy.frames.count == 4 && lossy.loopCount == 3)
        #expect(lossy.frames.map(\.duration) == durations)
    }

    @Test("a corpus animation re-encodes with the same frames, timing and loop")
    func corpusAnimation() throws {
        let original = try coder.decode(Corpus.data("webp/sharp/animated-loop-3.webp"), options: ImageDecodeOptions())
        let decoded = try coder.decode(coder.encode(original, as: .webp, options: .init(quality: 0.9)), options: ImageDecodeOptions())
        #expect(decoded.frames.count == original.frames.count)
        #expect(decoded.loopCount == 3)
        #expect(decoded.frames.map(\.duration) == original.frames.map(\.duration))
        for (a, b) in zip(decoded.frames, original.frames) {
            let diff = try #require(WebPSamples.meanDifference(a.pixels, b.pixels))
            #expect(diff < 6)
        }
    }

    @Test("firstFrameOnly encodes a still; other formats are refused")
    func optionsAndFormats() throws {
        let frames = (0..<3).map { ImageFrame(pixels: WebPSamples.gradient(width: 8, height: 8, seed: $0), duration: 0.1) }
        let image = try #require(DecodedImage(frames: frames, format: .webp))
        let still = try coder.decode(coder.encode(image, as: .webp, options: .init(lossless: true, firstFrameOnly: true)),
                                     options: ImageDecodeOptions())
        #expect(still.frames.count == 1 && still.pixels == frames[0].pixels)
        #expect(!coder.canEncode(to: .png))
        #expect(WebPSamples.errorCode { try coder.encode(image, as: .png, options: .init()) } == .unsupportedFormat)
        let huge = DecodedImage(pixels: PixelBuffer(width: 16_384, height: 1), format: .png)
        #expect(WebPSamples.errorCode { try coder.encode(huge, as: .webp, options: .init()) } == .encodingFailed)
    }
}
