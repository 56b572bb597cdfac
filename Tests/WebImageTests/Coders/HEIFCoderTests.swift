import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("HEIFCoder: decoding HEIC and HEIF", .timeLimit(.minutes(3)))
struct HEIFCoderTests {
    let coder = HEIFCoder()

    /// libheif 1.15 with libde265 1.0 here, libheif 1.23 with libde265 1.1 in pillow-heif:
    /// HEVC decoding is exact; the two libheif versions round the YUV to RGB conversion
    /// differently. Measured: up to 1 (mean 0.02) on 8-bit files, exact on the 10-bit one.
    static let tolerance = (max: 1, mean: 0.05)

    @Test("generated files match the pillow-heif decode", arguments: GeneratedFixtures.rows("heic"))
    func matchesReference(row: GeneratedFixtures.Row) throws {
        try GeneratedFixtures.check(row, with: coder, tolerance: Self.tolerance)
    }

    @Test("the reference files are there")
    func fixturesPresent() {
        #expect(GeneratedFixtures.rows("heic").count >= 4)
    }

    @Test("corpus HEIC/HEIF rows decode with their display size",
          arguments: Corpus.entries.filter { ["heic", "heif", "heics"].contains($0.format) && $0.expect == "ok" })
    func corpus(entry: Corpus.Entry) throws {
        let data = try entry.data()
        #expect(ImageCodersManager.shared.canDecode(data))
        let image = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
        #expect([.heic, .heif].contains(image.format))
        if let display = entry.display {
            #expect(image.width == display.width && image.height == display.height, "\(entry): \(image.width)x\(image.height)")
        }
    }

    @Test("an HEIF image sequence decodes to its primary still image")
    func sequenceStill() throws {
        let image = try coder.decode(Corpus.data("heic/sdwebimage/TestImageAnimated.heics"), options: ImageDecodeOptions())
        #expect(image.width == 256 && image.height == 144 && image.frames.count == 1)
    }

    @Test("the transforms are applied by libheif, with or without applyOrientation (it cannot skip only the turn)")
    func orientation() throws {
        let data = try Data(contentsOf: GeneratedFixtures.root.appendingPathComponent("orientation-6.heic"))
        let upright = try coder.decode(data, options: ImageDecodeOptions())
        #expect(upright.width == 48 && upright.height == 64)
        #expect(upright.orientation == .up)
        let asked = try coder.decode(data, options: ImageDecodeOptions(applyOrientation: false))
        #expect(asked.pixels == upright.pixels)
    }

    @Test("a thumbnail comes from the embedded thumbnail when it is large enough, else from the image")
    func thumbnail() throws {
        // TestImage.heif: 1440x960 with an embedded 240x160 thumbnail.
        let data = try Corpus.data("heic/sdwebimage/TestImage.heif")
        let full = try coder.decode(data, options: ImageDecodeOptions())
        func decode(_ side: Int) throws -> (image: DecodedImage, resampledFull: PixelBuffer) {
            let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: side, height: side))
            let size = options.targetSize(for: PixelSize(width: full.width, height: full.height))
            return (try coder.decode(data, options: options), full.pixels.resampled(width: size.width, height: size.height))
        }
        // Within the thumbnail's size: its own pixels, close to (not the same as) the image's
        // (the embedded thumbnail is a separate, smaller lossy encode: ~5 levels on average).
        let small = try decode(120)
        #expect(small.image.width == 120 && small.image.height == 80)
        let d = try #require(GeneratedFixtures.difference(small.image.pixels, small.resampledFull))
        #expect(d.mean > 0 && d.mean < 8, "thumbnail differs from the resampled image by \(d.mean) on average")
        // Beyond it: the primary image, resampled.
        let large = try decode(480)
        #expect(large.image.width == 480 && large.image.pixels == large.resampledFull)
    }

    @Test("truncated, corrupt and empty data fail with a coded error, never a crash")
    func badData() throws {
        let data = try Data(contentsOf: GeneratedFixtures.root.appendingPathComponent("still.heic"))
        for cut in [0, 16, 100, data.count / 2, data.count - 10] {
            let code = GeneratedFixtures.errorCode { try coder.decode(data.prefix(cut), options: ImageDecodeOptions()) }
            #expect(code == .badImageData, "cut at \(cut): \(String(describing: code))")
        }
        var corrupt = data
        for i in stride(from: data.count / 2, to: data.count, by: 5) { corrupt[i] ^= 0x5A }
        let code = GeneratedFixtures.errorCode { try coder.decode(corrupt, options: ImageDecodeOptions()) }
        #expect(code == nil || code == .badImageData)
    }

    @Test("a declared size over the pixel limit is imageTooLarge, before decoding")
    func tooLarge() throws {
        #expect(GeneratedFixtures.errorCode { try coder.decode(ISOBMFFBomb.heic(), options: ImageDecodeOptions()) } == .imageTooLarge)
        let data = try Data(contentsOf: GeneratedFixtures.root.appendingPathComponent("still.heic"))
        #expect(GeneratedFixtures.errorCode { try coder.decode(data, options: ImageDecodeOptions(maxPixelCount: 64 * 47)) } == .imageTooLarge)
    }

    /// Found by `make fuzz heif`: 2 KB declaring 67136x48 whose HEVC picture is 64x48.
    @Test("a picture smaller than the size its header declares is badImageData, not scaled up to it")
    func decodedSizeMustMatchHeader() throws {
        let data = try Data(contentsOf: FuzzRegressionTests.directory.appendingPathComponent("heif-declared-size-upscale.bin"))
        #expect(GeneratedFixtures.errorCode { try coder.decode(data, options: ImageDecodeOptions()) } == .badImageData)
        // The thumbnail path checks the same.
        let thumbnail = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        #expect(GeneratedFixtures.errorCode { try coder.decode(data, options: thumbnail) } == .badImageData)
    }

    @Test("AV1-coded HEIF is left to AVIFCoder: libheif decodes HEVC only")
    func av1IsNotLibheifs() throws {
        let avif = try Data(contentsOf: GeneratedFixtures.root.appendingPathComponent("still.avif"))
        #expect(GeneratedFixtures.errorCode { try coder.decode(avif, options: ImageDecodeOptions()) } == .unsupportedFormat)
        #expect(try ImageCodersManager.shared.decode(avif, options: ImageDecodeOptions()).format == .avif)
    }
}
