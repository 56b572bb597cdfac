import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("JXLCoder: decoding JPEG XL", .timeLimit(.minutes(3)))
struct JXLCoderTests {
    let coder = JXLCoder()

    /// libjxl 0.7 here and the newer libjxl in pillow-jxl-plugin render a lossy (XYB) image
    /// to sRGB with slightly different float code. Measured: up to 1 (mean 0.17) on the
    /// lossy file; lossless files must match exactly (and do).
    static let tolerance = (max: 1, mean: 0.25)

    @Test("generated files match the pillow-jxl-plugin decode", arguments: GeneratedFixtures.rows("jxl"))
    func matchesReference(row: GeneratedFixtures.Row) throws {
        try GeneratedFixtures.check(row, with: coder, tolerance: Self.tolerance)
    }

    @Test("the reference files are there")
    func fixturesPresent() {
        #expect(GeneratedFixtures.rows("jxl").count >= 2)
    }

    @Test("corpus JPEG XL rows decode with their display size",
          arguments: Corpus.entries(format: "jxl", expect: ["ok"]))
    func corpus(entry: Corpus.Entry) throws {
        let image = try ImageCodersManager.shared.decode(try entry.data(), options: ImageDecodeOptions())
        #expect(image.format == .jxl)
        if let display = entry.display {
            #expect(image.width == display.width && image.height == display.height, "\(entry): \(image.width)x\(image.height)")
        }
    }

    @Test("an animation decodes every frame with its duration and the loop count")
    func animation() throws {
        let frames = (0..<3).map { WebPSamples.gradient(width: 40, height: 30, seed: $0) }
        let data = try JXLSamples.animation(frames, milliseconds: [100, 250, 40], loops: 2)
        let image = try coder.decode(data, options: ImageDecodeOptions())
        #expect(image.frames.count == 3)
        #expect(image.loopCount == 2)
        #expect(image.frames.map(\.duration) == [0.1, 0.25, 0.04])
        #expect(image.frames.map(\.pixels) == frames, "lossless frames come back exactly")
        let first = try coder.decode(data, options: ImageDecodeOptions(firstFrameOnly: true))
        #expect(first.frames.count == 1 && first.pixels == frames[0])
        let thumbnail = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20)))
        #expect(thumbnail.width == 20 && thumbnail.height == 15 && thumbnail.frames.count == 3)
        #expect(GeneratedFixtures.errorCode {
            try coder.decode(data, options: ImageDecodeOptions(maxPixelCount: 40 * 30 * 2))
        } == .imageTooLarge)
    }

    @Test("truncated, corrupt and empty data fail with badImageData")
    func badData() throws {
        let data = try Data(contentsOf: GeneratedFixtures.root.appendingPathComponent("still.jxl"))
        for cut in [0, 2, 12, data.count / 2, data.count - 4] {
            #expect(GeneratedFixtures.errorCode { try coder.decode(data.prefix(cut), options: ImageDecodeOptions()) } == .badImageData,
                    "cut at \(cut)")
        }
        var corrupt = data
        for i in stride(from: 20, to: data.count, by: 3) { corrupt[i] ^= 0xA5 }
        let code = GeneratedFixtures.errorCode { try coder.decode(corrupt, options: ImageDecodeOptions()) }
        #expect(code == nil || code == .badImageData)
    }

    @Test("a header over the pixel limit is imageTooLarge, before decoding")
    func tooLarge() throws {
        let data = try Data(contentsOf: GeneratedFixtures.root.appendingPathComponent("still.jxl"))
        #expect(GeneratedFixtures.errorCode { try coder.decode(data, options: ImageDecodeOptions(maxPixelCount: 64 * 47)) } == .imageTooLarge)
        #expect(GeneratedFixtures.errorCode { try coder.decode(JXLSamples.bomb(), options: ImageDecodeOptions()) } == .imageTooLarge)
    }
}
