import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("GIF encoding", .timeLimit(.minutes(1)))
struct GIFEncoderTests {
    let coder = GIFCoder()

    /// A smooth gradient with `colors` well over 256 distinct values.
    static func gradient(width: Int, height: Int, phase: Int = 0) -> PixelBuffer {
        PixelBuffer(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    out[i] = UInt8((x * 255 / max(width - 1, 1) + phase) & 0xFF)
                    out[i + 1] = UInt8(y * 255 / max(height - 1, 1))
                    out[i + 2] = UInt8((x + y) * 127 / max(width + height - 2, 1))
                    out[i + 3] = 255
                }
            }
        }
    }

    /// Largest per-channel difference between two equally sized buffers, and the mean.
    static func difference(_ a: PixelBuffer, _ b: PixelBuffer) -> (max: Int, mean: Double) {
        var worst = 0, total = 0
        for (p, q) in zip(a.bytes, b.bytes) {
            let d = abs(Int(p) - Int(q))
            worst = max(worst, d)
            total += d
        }
        return (worst, Double(total) / Double(max(a.bytes.count, 1)))
    }

    @Test("A still image with few colours round-trips exactly")
    func exactPalette() throws {
        let colors: [RGBA] = [RGBA(r: 255, g: 0, b: 0), RGBA(r: 0, g: 128, b: 0), RGBA(r: 1, g: 2, b: 3), RGBA(r: 250, g: 251, b: 252)]
        var pixels = PixelBuffer(width: 37, height: 23)
        for y in 0..<23 {
            for x in 0..<37 {
                let c = colors[(x / 5 + y / 3) % colors.count]
                let i = (y * 37 + x) * 4
                pixels.bytes[i] = c.r; pixels.bytes[i + 1] = c.g; pixels.bytes[i + 2] = c.b; pixels.bytes[i + 3] = 255
            }
        }
        let data = try coder.encode(DecodedImage(pixels: pixels, format: .png), as: .gif, options: ImageEncodeOptions())
        #expect(ImageFormat.detect(data) == .gif)
        let decoded = try coder.decode(data, options: ImageDecodeOptions())
        #expect(decoded.frames.count == 1)
        #expect(decoded.pixels == pixels)
    }

    @Test("A photo-like still is quantized to 256 colours and stays close")
    func quantizedStill() throws {
        let pixels = Self.gradient(width: 120, height: 90)
        let data = try coder.encode(DecodedImage(pixels: pixels, format: .png), as: .gif, options: ImageEncodeOptions())
        let decoded = try coder.decode(data, options: ImageDecodeOptions())
        #expect(decoded.width == 120 && decoded.height == 90)
        let diff = Self.difference(decoded.pixels, pixels)
        #expect(diff.max <= 40, "max \(diff.max)")
        #expect(diff.mean < 4, "mean \(diff.mean)")
    }

    @Test("Alpha below 128 becomes the transparent index; the rest is opaque")
    func transparency() throws {
        var pixels = Self.gradient(width: 16, height: 16)
        for y in 0..<16 {
            for x in 0..<16 { pixels.bytes[(y * 16 + x) * 4 + 3] = x < 8 ? UInt8(y * 8) : 200 }
        }
        let data = try coder.encode(DecodedImage(pixels: pixels, format: .png), as: .gif, options: ImageEncodeOptions())
        let decoded = try coder.decode(data, options: ImageDecodeOptions()).pixels
        for y in 0..<16 {
            for x in 0..<16 {
                let alpha = pixels.bytes[(y * 16 + x) * 4 + 3]
                #expect(decoded[x, y]?.a == (alpha < 128 ? 0 : 255), "(\(x),\(y))")
            }
        }
    }

    @Test("An animation keeps frame count, loop count, delays and pixels")
    func animatedRoundTrip() throws {
        var frames: [ImageFrame] = []
        let durations = [0.1, 0.25, 0.05, 1.5]
        for (i, d) in durations.enumerated() {
            var pixels = Self.gradient(width: 40, height: 30, phase: i * 40)
            if i == 2 { for k in stride(from: 3, to: pixels.bytes.count, by: 8) { pixels.bytes[k] = 0 } }
            frames.append(ImageFrame(pixels: pixels, duration: d))
        }
        for loop in [0, 1, 3] {
            let image = try #require(DecodedImage(frames: frames, format: .gif, loopCount: loop))
            let data = try coder.encode(image, as: .gif, options: ImageEncodeOptions())
            let decoded = try coder.decode(data, options: ImageDecodeOptions())
            #expect(decoded.frames.count == 4)
            #expect(decoded.loopCount == loop)
            #expect(decoded.frames.map(\.duration) == durations)
            for (a, b) in zip(decoded.frames, frames) {
                // Transparent pixels are compared by alpha only; the rest by colour.
                #expect(a.pixels.hasAlpha == b.pixels.hasAlpha)
                var opaqueA = a.pixels, opaqueB = b.pixels
                for k in stride(from: 0, to: opaqueA.bytes.count, by: 4) where opaqueB.bytes[k + 3] == 0 {
                    #expect(opaqueA.bytes[k + 3] == 0)
                    for c in 0..<4 { opaqueA.bytes[k + c] = 0; opaqueB.bytes[k + c] = 0 }
                }
                let diff = Self.difference(opaqueA, opaqueB)
                #expect(diff.max <= 40 && diff.mean < 4, "\(diff)")
            }
        }
    }

    @Test("A decoded corpus animation re-encodes to the same structure")
    func corpusRoundTrip() throws {
        let original = try coder.decode(try Corpus.data("gif/wuffs/muybridge.gif"), options: ImageDecodeOptions())
        let data = try coder.encode(original, as: .gif, options: ImageEncodeOptions())
        let again = try coder.decode(data, options: ImageDecodeOptions())
        #expect(again.frames.count == original.frames.count)
        #expect(again.loopCount == original.loopCount)
        #expect(again.frames.map(\.duration) == original.frames.map(\.duration))
        // Grey-scale frames with few colours come back exactly.
        #expect(again.frames.map(\.pixels) == original.frames.map(\.pixels))
    }

    @Test("firstFrameOnly writes one frame; other formats are refused")
    func options() throws {
        let frames = (0..<3).map { ImageFrame(pixels: Self.gradient(width: 8, height: 8, phase: $0), duration: 0.2) }
        let image = try #require(DecodedImage(frames: frames, format: .gif))
        let data = try coder.encode(image, as: .gif, options: ImageEncodeOptions(firstFrameOnly: true))
        #expect(try coder.decode(data, options: ImageDecodeOptions()).frames.count == 1)
        #expect(coder.canEncode(to: .gif) && !coder.canEncode(to: .png))
        let error = #expect(throws: WebImageError.self) { try coder.encode(image, as: .png, options: ImageEncodeOptions()) }
        #expect(error?.code == .unsupportedFormat)
    }
}
