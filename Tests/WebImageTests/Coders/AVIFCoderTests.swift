import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("AVIFCoder: decoding AVIF stills and sequences", .timeLimit(.minutes(3)))
struct AVIFCoderTests {
    let coder = AVIFCoder()

    /// libavif 0.11 here and libavif 1.4 in Pillow decode the same AV1 samples (AV1 decoding
    /// is exact) but convert YUV to RGB with different code. Measured: the 8-bit files and
    /// the 10-bit one match exactly; the 12-bit files differ by up to 4 (mean 0.48 at most),
    /// the 12-to-8-bit rounding and chroma upsampling of the two versions.
    static let tolerance = (max: 4, mean: 0.6)

    @Test("generated files and 10/12-bit corpus files match the pillow-avif-plugin decode",
          arguments: GeneratedFixtures.rows("avif"))
    func matchesReference(row: GeneratedFixtures.Row) throws {
        try GeneratedFixtures.check(row, with: coder, tolerance: Self.tolerance)
    }

    @Test("the reference files are there")
    func fixturesPresent() {
        #expect(GeneratedFixtures.rows("avif").count >= 8)
    }

    @Test("corpus AVIF rows decode with their display size and frame count",
          arguments: Corpus.entries(format: "avif", expect: ["ok"]))
    func corpus(entry: Corpus.Entry) throws {
        let data = try entry.data()
        #expect(ImageCodersManager.shared.canDecode(data))
        let image = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
        #expect(image.format == .avif)
        if let display = entry.display {
            #expect(image.width == display.width && image.height == display.height, "\(entry): \(image.width)x\(image.height)")
        }
        #expect(image.frames.count == entry.frames ?? 1, "\(entry)")
    }

    /// `optional`: valid files that libavif 0.11 cannot parse (MANIFEST's note says why).
    @Test("corpus files that must fail throw a coded error; lenient and optional ones decode or fail cleanly",
          arguments: Corpus.entries(format: "avif", expect: ["fail", "lenient", "optional"]))
    func corpusFailures(entry: Corpus.Entry) throws {
        let code = GeneratedFixtures.errorCode { try coder.decode(try entry.data(), options: ImageDecodeOptions()) }
        if entry.expect == "fail" {
            #expect(code == .badImageData || code == .unsupportedFormat, "\(entry): \(String(describing: code))")
        } else {
            #expect(code == nil || code == .badImageData || code == .unsupportedFormat, "\(entry)")
        }
    }

    @Test("irot/imir become the orientation: applied by default, reported and skipped when asked")
    func orientation() throws {
        let data = try Data(contentsOf: GeneratedFixtures.root.appendingPathComponent("orientation-6.avif"))
        let upright = try coder.decode(data, options: ImageDecodeOptions())
        #expect(upright.orientation == .right)
        #expect(upright.width == 48 && upright.height == 64)
        let stored = try coder.decode(data, options: ImageDecodeOptions(applyOrientation: false))
        #expect(stored.orientation == .right)
        #expect(stored.width == 64 && stored.height == 48)
        #expect(stored.pixels.oriented(.right) == upright.pixels)
    }

    @Test("a thumbnail is the full decode resampled, at the fitted size")
    func thumbnail() throws {
        let data = try Corpus.data("avif/libavif/kodim03_yuv420_8bpc.avif")
        let full = try coder.decode(data, options: ImageDecodeOptions())
        let small = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100)))
        #expect(small.width == 100 && small.height == 67)
        #expect(small.pixels == full.pixels.resampled(width: 100, height: 67))
        let first = try coder.decode(Corpus.data("avif/libavif/colors-animated-8bpc.avif"),
                                     options: ImageDecodeOptions(firstFrameOnly: true))
        #expect(first.frames.count == 1)
    }

    @Test("truncated, corrupt and empty data fail with badImageData")
    func badData() throws {
        let data = try Corpus.data("avif/pillow/hopper.avif")
        for cut in [0, 16, 100, data.count / 2, data.count - 10] {
            #expect(GeneratedFixtures.errorCode { try coder.decode(data.prefix(cut), options: ImageDecodeOptions()) } == .badImageData,
                    "cut at \(cut)")
        }
        var corrupt = data
        for i in stride(from: data.count / 2, to: data.count, by: 7) { corrupt[i] ^= 0x5A }
        let code = GeneratedFixtures.errorCode { try coder.decode(corrupt, options: ImageDecodeOptions()) }
        #expect(code == nil || code == .badImageData)
    }

    @Test("a declared size over the pixel limit is imageTooLarge, before decoding")
    func tooLarge() throws {
        #expect(GeneratedFixtures.errorCode { try coder.decode(ISOBMFFBomb.avif(), options: ImageDecodeOptions()) } == .imageTooLarge)
        let data = try Corpus.data("avif/libavif/colors-animated-8bpc.avif")  // 150x150, 5 frames
        let limit = ImageDecodeOptions(maxPixelCount: 150 * 150 * 4)
        #expect(GeneratedFixtures.errorCode { try coder.decode(data, options: limit) } == .imageTooLarge)
        var first = limit
        first.firstFrameOnly = true
        #expect(try coder.decode(data, options: first).frames.count == 1)
    }
}
