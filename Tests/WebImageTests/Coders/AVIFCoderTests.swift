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

    /// `optional`: valid files that libavif 0.11 cannot parse (MANIFEST's note says why);
    /// none is left in the corpus, the row stays for files added later.
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

    /// The same five frames as `colors-animated-8bpc.avif`, with an AAC track beside them
    /// whose `tkhd` declares 0x0, which libavif 0.11 alone refuses.
    @Test("a sequence with an audio track decodes its pictures, eagerly and lazily")
    func audioTrack() throws {
        let withAudio = try Corpus.data("avif/libavif/colors-animated-8bpc-audio.avif")
        let plain = try coder.decode(Corpus.data("avif/libavif/colors-animated-8bpc.avif"), options: ImageDecodeOptions())
        let image = try coder.decode(withAudio, options: ImageDecodeOptions())
        #expect(image.frames.count == 5)
        #expect(image.frames.map(\.pixels) == plain.frames.map(\.pixels))
        #expect(image.frames.map(\.duration) == plain.frames.map(\.duration))
        let lazy = try #require(try AVIFAnimationDecoder(data: withAudio, options: ImageDecodeOptions()))
        #expect(try lazy.frame(at: 3, reusing: nil).pixels == plain.frames[3].pixels)
    }

    @Test("only tracks without a picture handler are hidden, and a damaged moov is left as it is")
    func trackFilter() throws {
        var audio = [UInt8](try Corpus.data("avif/libavif/colors-animated-8bpc-audio.avif"))
        let original = audio
        #expect(audio.withUnsafeMutableBytes { AVIFTrackFilter.hideNonPictureTracks(in: $0) } == 1)
        #expect(audio.count == original.count)
        let changed = audio.indices.filter { audio[$0] != original[$0] }
        let type = try #require(changed.first)  // "trak" → "free": the "r" stays, three bytes change
        #expect(changed.last == type + 3, "only the one trak's type changes")
        #expect(String(decoding: original[type ..< type + 4], as: UTF8.self) == "trak")
        #expect(String(decoding: audio[type ..< type + 4], as: UTF8.self) == "free")
        // Alpha sequences keep their auxv track.
        var alpha = [UInt8](try Corpus.data("avif/libavif/colors-animated-8bpc-alpha-exif-xmp.avif"))
        #expect(alpha.withUnsafeMutableBytes { AVIFTrackFilter.hideNonPictureTracks(in: $0) } == 0)
        // Every truncation and a box length past the end: no trap, nothing hidden beyond the cut.
        for cut in stride(from: 0, to: original.count, by: 97) {
            var part = Array(original.prefix(cut))
            _ = part.withUnsafeMutableBytes { AVIFTrackFilter.hideNonPictureTracks(in: $0) }
        }
        var lying = original
        lying[290 ..< 294] = [0xFF, 0xFF, 0xFF, 0xF0]  // the moov box (at 290 in this file) claims 4 GB
        #expect(lying.withUnsafeMutableBytes { AVIFTrackFilter.hideNonPictureTracks(in: $0) } == 0)
    }

    /// libavif issue 1203: a 2-tile grid (80x80) whose two alpha items each belong to a
    /// colour tile; the left half of its alpha is transparent-ish, measured in Chromium.
    @Test("a grid whose alpha belongs to its tiles decodes with that alpha")
    func gridWithTileAlpha() throws {
        let data = try Corpus.data("avif/libavif/color_grid_alpha_nogrid.avif")
        let rewrite = try #require(data.withUnsafeBytes { AVIFAlphaGrid.rewrite($0) })
        #expect(String(decoding: data[(rewrite.metaOffset + 4)..<(rewrite.metaOffset + 8)], as: UTF8.self) == "meta")
        let image = try coder.decode(data, options: ImageDecodeOptions())
        #expect(image.pixels.width == 80 && image.pixels.height == 80)
        let alpha = stride(from: 3, to: image.pixels.bytes.count, by: 4).map { image.pixels.bytes[$0] }
        #expect(alpha.contains { $0 < 255 }, "the tiles' alpha is applied, not an opaque image")
        // A grid whose alpha is a grid already (this file once rewritten), a grid without
        // alpha, a still with alpha and a sequence are left alone.
        var rewritten = [UInt8](repeating: 0, count: data.count + rewrite.meta.count)
        rewritten.withUnsafeMutableBytes { rewrite.write(data, into: $0) }
        #expect(rewritten.withUnsafeBytes { AVIFAlphaGrid.rewrite($0) } == nil)
        #expect(try coder.decode(Data(rewritten), options: ImageDecodeOptions()).pixels == image.pixels)
        for path in ["avif/libavif/sofa_grid1x5_420.avif", "avif/libavif/alpha_noispe.avif", "avif/libavif/colors-animated-8bpc.avif"] {
            #expect(try Corpus.data(path).withUnsafeBytes { AVIFAlphaGrid.rewrite($0) } == nil, "\(path)")
        }
        // Every truncation and every single-byte corruption of the meta box: no trap, and a
        // rewrite only when the meta box survived whole.
        for cut in stride(from: 0, to: data.count, by: 53) {
            _ = data.prefix(cut).withUnsafeBytes { AVIFAlphaGrid.rewrite($0) }
        }
        var damaged = data
        for offset in rewrite.metaOffset..<(rewrite.metaOffset + rewrite.meta.count - 40) {
            let kept = damaged[offset]
            damaged[offset] = kept ^ 0xFF
            if let other = damaged.withUnsafeBytes({ AVIFAlphaGrid.rewrite($0) }) {
                _ = try? coder.decode(damaged, options: ImageDecodeOptions())
                #expect(other.metaOffset == rewrite.metaOffset)
            }
            damaged[offset] = kept
        }
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
