import CJPEGShim
import Foundation
import Testing
@testable import WebImageCodecs

/// WebImage's scaled baseline JPEG decoder (`wi_jpeg_scaled.c`): at 1/4 and 1/8 its Y, Cb
/// and Cr planes are libjpeg-turbo's raw-data planes (`jpeg_read_raw_data` at the same
/// `scale_denom`), byte for byte, and the switch hands every decode back to libjpeg-turbo.
@Suite("JPEG scaled baseline decoder", .timeLimit(.minutes(3)))
struct JPEGScaledDecoderTests {
    /// One planar decode: each plane's rows, and who decoded them.
    struct Planes: Equatable {
        var samples: [[UInt8]]
        var widths: [Int]
        var scaled: Bool
    }

    /// The planes of `data` at 1/`scale` (`nil` when the file has no such planes);
    /// `allowScaled` false decodes through libjpeg-turbo alone.
    static func planes(_ data: Data, scale: Int, allowScaled: Bool) throws -> Planes? {
        try data.withUnsafeBytes { bytes -> Planes? in
            let jpeg = try JPEGDecompressor()
            jpeg.setInput(bytes, isComplete: true)
            guard try jpeg.readHeader() != nil, jpeg.hasPlanes else { return nil }
            let info = try jpeg.configurePlanes(scaleDenominator: scale)
            var samples = info.map { _ in [UInt8]() }
            jpeg.allowScaledDecoder(allowScaled, everywhere: true)
            _ = try jpeg.start()
            while try jpeg.readPlanes({ i, rows, stride, count in
                for r in 0..<count {
                    samples[i].append(contentsOf: UnsafeBufferPointer(start: rows + r * stride, count: Int(info[i].width)))
                }
            }) {}
            guard !jpeg.isTruncated else { return nil }
            _ = try jpeg.finish()
            for (i, plane) in info.enumerated() {
                #expect(samples[i].count == Int(plane.width) * Int(plane.height))
            }
            return Planes(samples: samples, widths: info.map { Int($0.width) }, scaled: jpeg.usedScaledDecoder)
        }
    }

    /// The corpus's JPEGs that decode (the baseline ones among them are the decoder's).
    static let jpegs: [Corpus.Entry] = Corpus.entries(format: "jpeg", expect: ["ok"]).filter { $0.bytes < 3_000_000 }

    @Test("the corpus's baseline JPEGs give libjpeg-turbo's raw-data planes byte for byte", arguments: [4, 8])
    func corpusPlanes(scale: Int) throws {
        var scaledFiles = 0
        for entry in Self.jpegs {
            let data = try entry.data()
            guard let reference = try? Self.planes(data, scale: scale, allowScaled: false) else { continue }
            #expect(!reference.scaled, "\(entry)")
            let ours = try #require(try Self.planes(data, scale: scale, allowScaled: true), "\(entry)")
            guard ours.scaled else { continue }
            scaledFiles += 1
            #expect(ours.widths == reference.widths, "\(entry)")
            for i in 0..<3 where ours.samples[i] != reference.samples[i] {
                let at = zip(ours.samples[i], reference.samples[i]).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1
                Issue.record("\(entry) at 1/\(scale): plane \(i) differs first at sample \(at)")
            }
        }
        // 4:2:0, 4:2:2, 4:4:0 and 4:4:4 files, with and without restart intervals.
        #expect(scaledFiles >= 60, "only \(scaledFiles) files took the scaled decoder")
    }

    @Test("files it does not take stay with libjpeg-turbo: progressive, arithmetic, truncated",
          arguments: ["jpeg/wuffs/peacock.progressive.jpeg", "jpeg/wuffs/peacock.default.truncated.jpeg",
                      "jpeg/jpegsuite/extended_arithmetic/32x32x8_ycbcr_interleaved.jpg"])
    func declined(path: String) throws {
        let data = try Corpus.data(path)
        try data.withUnsafeBytes { bytes in
            let jpeg = try JPEGDecompressor()
            jpeg.setInput(bytes, isComplete: true)
            _ = try #require(try jpeg.readHeader())
            #expect(jpeg.hasPlanes)
            _ = try jpeg.configurePlanes(scaleDenominator: 8)
            jpeg.allowScaledDecoder(true)
            _ = try jpeg.start()
            #expect(!jpeg.usedScaledDecoder, "\(path)")
        }
        // The same file's baseline sibling does take it (so the check above can fail).
        let baseline = try Corpus.data("jpeg/wuffs/peacock.default.jpeg")
        #expect(try Self.planes(baseline, scale: 8, allowScaled: true)?.scaled == true)
    }

    /// Found by the differential fuzzer: 0xFF fill bytes before a stuffed 0x00 inside the
    /// coded data. libjpeg-turbo's fast path takes them for a marker, decodes the MCU on zero
    /// bits, decodes it again properly, and keeps the first pass's coefficients that the
    /// second leaves alone; the scaled decoder hands such data to libjpeg-turbo.
    @Test("fill bytes before a stuffed zero go to libjpeg-turbo, whose planes come out")
    func fillBeforeStuffedZero() throws {
        let url = Corpus.packageRoot.appendingPathComponent("Tests/Fixtures/jpeg-scaled/ff-fill-before-stuffed-zero.jpg")
        let data = try Data(contentsOf: url)
        let reference = try #require(try Self.planes(data, scale: 4, allowScaled: false))
        let ours = try #require(try Self.planes(data, scale: 4, allowScaled: true))
        #expect(!ours.scaled)
        #expect(ours.samples == reference.samples)
    }

    @Test("the decode option turns it off, and the thumbnail is the same either way")
    func option() throws {
        // 1800×1200 baseline 4:2:0 to 100×67: decoded at 1/8, from a megapixel (where it takes files
        // outside comparisons).
        let data = try Corpus.data("jpeg/exif-orientation/Landscape_1.jpg")
        var options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100))
        options.usesScaledJPEGDecoder = true
        let on = try #require(try JPEGPlanarTranscoder.transcode(data, options: options, encode: .init()))
        options.usesScaledJPEGDecoder = false
        let off = try #require(try JPEGPlanarTranscoder.transcode(data, options: options, encode: .init()))
        #expect(on.usedScaledDecoder)
        #expect(!off.usedScaledDecoder)
        #expect(on.data == off.data)
    }

    @Test("WEBIMAGE_JPEG_SCALED_DECODER=0 (or false, off, no) turns it off; anything else leaves it on")
    func environment() {
        for value in ["0", "false", "OFF", "no"] {
            #expect(!ImageDecodeOptions.scaledJPEGDecoderEnabled(environment: ["WEBIMAGE_JPEG_SCALED_DECODER": value]))
        }
        #expect(ImageDecodeOptions.scaledJPEGDecoderEnabled(environment: [:]))
        #expect(ImageDecodeOptions.scaledJPEGDecoderEnabled(environment: ["WEBIMAGE_JPEG_SCALED_DECODER": "1"]))
        let process = ProcessInfo.processInfo.environment
        #expect(ImageDecodeOptions.scaledJPEGDecoderDefault == ImageDecodeOptions.scaledJPEGDecoderEnabled(environment: process))
        #expect(ImageDecodeOptions().usesScaledJPEGDecoder == ImageDecodeOptions.scaledJPEGDecoderDefault)
    }
}
