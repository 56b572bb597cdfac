import CJPEGShim
import Foundation
import Testing
@testable import WebImageCodecs

/// The progressive scan filter (`wi_jpeg_filter_scans`): at 1/8 the copy decodes to exactly
/// the pixels of a full 1/8 decode; at 1/4 it stays close; anything unusual is left alone.
@Suite("JPEG scan filter for scaled progressive decodes", .timeLimit(.minutes(2)))
struct JPEGScanFilterTests {
    /// The filtered copy of `data` for 1/`scale`, or `nil` when the filter declines.
    static func filtered(_ data: Data, scale: UInt32) -> Data? {
        var out = Data(count: data.count)
        let count = data.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                wi_jpeg_filter_scans(input.baseAddress!.assumingMemoryBound(to: UInt8.self), input.count, scale,
                                     output.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return count > 0 ? out.prefix(count) : nil
    }

    /// libjpeg's RGBA output at 1/`scale`, before any resampling.
    static func decode(_ data: Data, scale: Int, smoothing: Bool) throws -> PixelBuffer {
        try data.withUnsafeBytes { bytes in
            let jpeg = try JPEGDecompressor()
            jpeg.setInput(bytes, isComplete: true)
            _ = try #require(try jpeg.readHeader())
            let size = try jpeg.configure(scaleDenominator: scale, buffered: false)
            if !smoothing { jpeg.disableBlockSmoothing() }
            _ = try jpeg.start()
            let pixels = try PixelBuffer(width: size.width, height: size.height) { buffer in
                _ = try jpeg.readRows(into: buffer.baseAddress!, stride: size.width * 4)
            }
            _ = try jpeg.finish()
            return pixels
        }
    }

    static let progressive: [Corpus.Entry] = Corpus.entries(format: "jpeg", expect: ["ok"]).filter { entry in
        guard let data = try? entry.data() else { return false }
        return data.count < 4_000_000 && data.withUnsafeBytes { p in
            (0..<(p.count - 1)).contains { p[$0] == 0xFF && p[$0 + 1] == 0xC2 }
        }
    }

    @Test("at 1/8 the copy decodes to exactly the full decode's pixels")
    func eighthIsExact() throws {
        var filteredFiles = 0
        for entry in Self.progressive {
            let data = try entry.data()
            guard let copy = Self.filtered(data, scale: 8) else { continue }
            filteredFiles += 1
            #expect(copy.count < data.count, "\(entry)")
            let expected = try Self.decode(data, scale: 8, smoothing: true)
            #expect(try Self.decode(copy, scale: 8, smoothing: false) == expected, "\(entry)")
        }
        // 4:4:4, 4:2:0 and greyscale photos among them (TestImageLarge, tower, progressive3…).
        #expect(filteredFiles >= 10, "only \(filteredFiles) of \(Self.progressive.count) progressive files filtered")
    }

    @Test("at 1/4 only luma scans past its slope terms go, and the thumbnail stays close")
    func quarterIsClose() throws {
        let data = try Corpus.data("jpeg/sdwebimage/TestImageLarge.jpg")
        let copy = try #require(Self.filtered(data, scale: 4))
        // Its luma refinements (scans 5 and 9) and the first pass of zig-zag 6-63 (scan 4).
        #expect(data.count - copy.count == 29_365 + 116_373 + 34)
        // A thumbnail at this scale (5250×3450 → 400×263) barely changes.
        let full = try Self.decode(data, scale: 4, smoothing: true).resampled(width: 400, height: 263)
        let approximate = try Self.decode(copy, scale: 4, smoothing: false).resampled(width: 400, height: 263)
        let difference = JPEGCoderTests.meanDifference(approximate, full)
        #expect(difference < 1, "mean difference \(difference)")
        // Nothing is dropped at 1/2: every coefficient reaches a 4×4 or 8×8 IDCT there.
        #expect(Self.filtered(data, scale: 2) == nil)
    }

    @Test("baseline, cut-off and damaged files are left to libjpeg")
    func declines() throws {
        #expect(Self.filtered(try Corpus.data("jpeg/libjpeg-turbo/testorig.jpg"), scale: 8) == nil)
        let progressive = try Corpus.data("jpeg/sdwebimage/TestImageLarge.jpg")
        #expect(Self.filtered(progressive.prefix(progressive.count / 2), scale: 8) == nil)
        #expect(Self.filtered(progressive.dropLast(2), scale: 8) == nil)
        var damaged = progressive
        damaged[2] = 0x00  // the first marker after SOI
        #expect(Self.filtered(damaged, scale: 8) == nil)
        for name in ["progressive-missing-ac", "progressive-missing-dc"] {
            // libjpeg would smooth these whole: the copy could not match.
            #expect(Self.filtered(try Corpus.data("jpeg/jpeg-decoder/reftest/\(name).jpg"), scale: 8) == nil, "\(name)")
        }
    }
}
