import CJPEGShim
import Foundation
import Testing
@testable import WebImageCodecs

/// WebImage's scaled baseline JPEG decoder with RGBA output (`wi_jpeg_scaled_rgb.c`): at 1/4
/// and 1/8 its rows are libjpeg-turbo's own full decompress at the same `scale_denom`
/// (`jpeg_start_decompress` and `jpeg_read_scanlines`, JCS_EXT_RGBA), byte for byte. The
/// reference is the same shim decompressor with the scaled decoder off, so libjpeg-turbo
/// alone makes it. Files outside the decoder's subset keep libjpeg-turbo's pixels, and
/// `JPEGCoder` (thumbnails, bulk samples, `/info`) uses it behind the one switch.
@Suite("JPEG scaled decoder, RGBA output", .timeLimit(.minutes(3)))
struct JPEGScaledRGBTests {
    /// One RGBA decode and who made it.
    struct Rows: Equatable {
        var pixels: [UInt8]
        var width: Int
        var height: Int
        var scaled: Bool
    }

    /// `data` decoded to RGBA at 1/`scale` in one call (`strip` nil) or in strips of `strip`
    /// rows; `allowScaled` false decodes through libjpeg-turbo alone.
    static func rows(_ data: Data, scale: Int, allowScaled: Bool, strip: Int? = nil) throws -> Rows {
        try data.withUnsafeBytes { bytes -> Rows in
            let jpeg = try JPEGDecompressor()
            jpeg.setInput(bytes, isComplete: true)
            guard try jpeg.readHeader() != nil else { throw WebImageError.badImageData("no header") }
            let size = try jpeg.configure(scaleDenominator: scale, buffered: false)
            jpeg.allowScaledDecoder(allowScaled, everywhere: true)
            _ = try jpeg.start()
            let stride = size.width * 4
            var pixels = [UInt8](repeating: 0, count: stride * size.height)
            var done = 0
            try pixels.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                guard let strip else {
                    done = try jpeg.readRows(into: base, stride: stride)
                    return
                }
                while done < size.height {
                    let rows = try jpeg.readStrip(into: base + done * stride, stride: stride,
                                                  maxRows: min(strip, size.height - done))
                    guard rows > 0 else { break }
                    done += rows
                }
            }
            guard done == size.height, !jpeg.isTruncated else { throw WebImageError.badImageData("stopped early") }
            _ = try jpeg.finish()
            return Rows(pixels: pixels, width: size.width, height: size.height, scaled: jpeg.usedScaledDecoder)
        }
    }

    /// Where `ours` first differs from `reference`, for the failure message.
    static func firstDifference(_ ours: Rows, _ reference: Rows) -> String {
        let at = zip(ours.pixels, reference.pixels).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1
        return "\(ours.width)x\(ours.height) vs \(reference.width)x\(reference.height), first at byte \(at)"
    }

    static let jpegs: [Corpus.Entry] = Corpus.entries(format: "jpeg", expect: ["ok"]).filter { $0.bytes < 3_000_000 }

    @Test("the corpus's baseline JPEGs give libjpeg-turbo's RGBA rows byte for byte", arguments: [4, 8])
    func corpusRows(scale: Int) throws {
        var scaledFiles = 0
        for (index, entry) in Self.jpegs.enumerated() {
            let data = try entry.data()
            guard let reference = try? Self.rows(data, scale: scale, allowScaled: false) else { continue }
            #expect(!reference.scaled, "\(entry)")
            // Every other file in uneven strips, as the thumbnail path reads them.
            let ours = try Self.rows(data, scale: scale, allowScaled: true, strip: index % 2 == 0 ? nil : 7)
            guard ours.scaled else { continue }
            scaledFiles += 1
            #expect(ours == Rows(pixels: reference.pixels, width: reference.width, height: reference.height, scaled: true),
                    "\(entry) at 1/\(scale): \(Self.firstDifference(ours, reference))")
        }
        #expect(scaledFiles >= 100, "only \(scaledFiles) files took the scaled decoder")
    }

    /// One file of each kind the RGBA rows are made for; the `-sweep` files were written by
    /// libjpeg-turbo through `scripts/jpeg-scaled/sweep.c write` (the corpus has no 4:4:0 file).
    @Test("each sampling takes the scaled decoder and gives libjpeg-turbo's rows", arguments: [
        "corpus/jpeg/wuffs/peacock.s1x1-444.jpeg", "corpus/jpeg/wuffs/peacock.s2x1-422.jpeg",
        "corpus/jpeg/wuffs/peacock.s2x2-420.jpeg", "corpus/jpeg/wuffs/peacock.grayscale.jpeg",
        "corpus/jpeg/jpeg-decoder/reftest/restarts.jpg", "corpus/jpeg/jpegsuite/baseline/32x32x8_restarts.jpg",
        "jpeg-scaled/s1x2-440-99x75-sweep.jpg", "jpeg-scaled/s2x1-422-101x67-restarts-sweep.jpg",
    ])
    func samplings(path: String) throws {
        let data = try Data(contentsOf: Corpus.packageRoot.appendingPathComponent("Tests/Fixtures/" + path))
        for scale in [4, 8] {
            let reference = try Self.rows(data, scale: scale, allowScaled: false)
            let ours = try Self.rows(data, scale: scale, allowScaled: true, strip: 3)
            #expect(ours.scaled, "\(path) at 1/\(scale)")
            #expect(ours.pixels == reference.pixels, "\(path) at 1/\(scale): \(Self.firstDifference(ours, reference))")
        }
    }

    /// Declined from the header before a pixel is written: progressive and arithmetic files
    /// (the decoder's own rule), CMYK, and an RGB-coded file whose planes the decoder takes
    /// but whose rows libjpeg-turbo does not make by YCbCr conversion.
    @Test("files outside the subset keep libjpeg-turbo's pixels", arguments: [
        "jpeg/wuffs/peacock.progressive.jpeg", "jpeg/jpeg-decoder/tower_progressive.jpg",
        "jpeg/jpegsuite/extended_arithmetic/32x32x8_ycbcr_interleaved.jpg", "jpeg/pillow/pil_sample_cmyk.jpg",
        "jpeg/jpegsuite/baseline/32x32x8_rgb_interleaved.jpg",
    ])
    func declined(path: String) throws {
        let data = try Corpus.data(path)
        for scale in [4, 8] {
            let reference = try Self.rows(data, scale: scale, allowScaled: false)
            let ours = try Self.rows(data, scale: scale, allowScaled: true)
            #expect(!ours.scaled, "\(path) at 1/\(scale)")
            #expect(ours == reference, "\(path) at 1/\(scale)")
        }
    }

    /// JPEGCoder's thumbnail decode (the path of the library's thumbnails, bulk samples and
    /// `/info`): 1800×1200 4:2:0 to 100 px is a 1/8 decode of over a megapixel, where the
    /// scaled decoder runs by default; with the option off libjpeg-turbo decodes, and the
    /// images are the same. Landscape_6 is turned while it decodes (the strip-writing path).
    @Test("JPEGCoder's thumbnail decode uses it behind ImageDecodeOptions.usesScaledJPEGDecoder",
          arguments: ["jpeg/exif-orientation/Landscape_1.jpg", "jpeg/exif-orientation/Landscape_6.jpg"])
    func coderThumbnail(path: String) throws {
        let data = try Corpus.data(path)
        var options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100))
        options.usesScaledJPEGDecoder = true
        let on = try JPEGCoder().decodeReporting(data, options: options)
        options.usesScaledJPEGDecoder = false
        let off = try JPEGCoder().decodeReporting(data, options: options)
        #expect(on.usedScaledDecoder)
        #expect(!off.usedScaledDecoder)
        #expect(on.image.width == off.image.width && on.image.height == off.image.height)
        #expect(on.image.pixels.bytes == off.image.pixels.bytes)
        #expect(try JPEGCoder().decode(data, options: options).pixels.bytes == off.image.pixels.bytes)
    }
}
