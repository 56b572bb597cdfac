import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("AVIFCoder: encoding AVIF", .timeLimit(.minutes(3)))
struct AVIFEncoderTests {
    let coder = AVIFCoder()

    @Test("lossy round trip stays close, keeps alpha, and lower quality makes smaller files")
    func lossy() throws {
        let photo = try JPEGCoder().decode(Corpus.data("jpeg/libavif/paris_exif_orientation_5.jpg"),
                                           options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 160, height: 160)))
        let high = try coder.encode(photo, as: .avif, options: ImageEncodeOptions(quality: 0.9))
        let low = try coder.encode(photo, as: .avif, options: ImageEncodeOptions(quality: 0.2))
        #expect(ImageFormat.detect(high) == .avif)
        #expect(low.count < high.count)
        let decoded = try coder.decode(high, options: ImageDecodeOptions())
        #expect(decoded.width == photo.width && decoded.height == photo.height)
        let d = try #require(GeneratedFixtures.difference(decoded.pixels, photo.pixels))
        #expect(d.mean < 3, "quality 0.9 differs by \(d.mean) per channel")

        let translucent = WebPSamples.gradient(width: 40, height: 24)
        let back = try coder.decode(coder.encode(DecodedImage(pixels: translucent, format: .png), as: .avif,
                                                 options: ImageEncodeOptions(quality: 0.9)), options: ImageDecodeOptions())
        let a = translucent.bytes, b = back.pixels.bytes
        let alphaDiff = stride(from: 3, to: a.count, by: 4).map { abs(Int(a[$0]) - Int(b[$0])) }.max() ?? 255
        #expect(back.hasAlpha)
        #expect(alphaDiff <= 24, "alpha changed by up to \(alphaDiff)")
    }

    @Test("lossless gives back every RGB byte")
    func lossless() throws {
        var pixels = WebPSamples.gradient(width: 33, height: 17)
        pixels.withUnsafeMutableBytes { p in for i in stride(from: 3, to: p.count, by: 4) { p[i] = 255 } }
        let data = try coder.encode(DecodedImage(pixels: pixels, format: .png), as: .avif, options: ImageEncodeOptions(lossless: true))
        #expect(try coder.decode(data, options: ImageDecodeOptions()).pixels == pixels)
    }

    @Test("several frames make an image sequence with their durations; firstFrameOnly makes a still")
    func sequence() throws {
        let frames = (0..<3).map { ImageFrame(pixels: WebPSamples.gradient(width: 32, height: 20, seed: $0), duration: [0.1, 0.25, 0.05][$0]) }
        let image = try #require(DecodedImage(frames: frames, format: .gif))
        let decoded = try coder.decode(coder.encode(image, as: .avif, options: ImageEncodeOptions(quality: 0.8)), options: ImageDecodeOptions())
        #expect(decoded.frames.count == 3)
        #expect(decoded.frames.map(\.duration) == [0.1, 0.25, 0.05])
        let still = try coder.decode(coder.encode(image, as: .avif, options: ImageEncodeOptions(firstFrameOnly: true)),
                                     options: ImageDecodeOptions())
        #expect(still.frames.count == 1)
    }

    @Test("other formats and empty images are refused with a code; speed is clamped")
    func refusals() throws {
        let image = DecodedImage(pixels: WebPSamples.gradient(width: 8, height: 8), format: .png)
        #expect(GeneratedFixtures.errorCode { try coder.encode(image, as: .png, options: ImageEncodeOptions()) } == .unsupportedFormat)
        let empty = DecodedImage(pixels: PixelBuffer(width: 0, height: 0), format: .png)
        #expect(GeneratedFixtures.errorCode { try coder.encode(empty, as: .avif, options: ImageEncodeOptions()) } == .encodingFailed)
        #expect(ImageEncodeOptions(speed: 99).speed == 10 && ImageEncodeOptions(speed: -3).speed == 0)
        #expect(ImageCodersManager.shared.canEncode(to: .avif))
    }
}
