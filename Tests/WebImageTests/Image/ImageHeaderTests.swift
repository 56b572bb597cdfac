import Foundation
import Testing
import WebImageCodecs

/// `ImageHeader.coefficientBytes`: what libjpeg holds for a multi-scan JPEG whatever scale
/// it decodes at (the proxy's memory budget reserves it). Expected values are worked out
/// here from the frame header's numbers (printed by any JPEG dump tool) and libjpeg's
/// layout: per component, ⌈size × factor ÷ (max factor × 8)⌉ blocks each way, padded to a
/// multiple of the component's factor, 64 coefficients of 2 bytes per block.
@Suite("ImageHeader: JPEG sizes and a multi-scan JPEG's coefficient arrays")
struct ImageHeaderTests {
    @Test("every JPEG of the corpus that decodes: the header's size is MANIFEST's (libjpeg's)")
    func everyJPEGSize() throws {
        let entries = Corpus.entries(format: "jpeg", expect: ["ok"])
        #expect(entries.count > 250)
        for entry in entries {
            let header = ImageHeader(try entry.data())
            #expect(header?.storedSize.width == entry.width && header?.storedSize.height == entry.height, "\(entry)")
        }
        // A segment one byte short (APP14 length 13, then a stray byte before DQT): libjpeg
        // skips the byte and decodes; the bulk mode used to call it undecodable.
        let short = try #require(ImageHeader(try Corpus.data("jpeg/pillow/truncated_app14.jpg")))
        #expect(short.storedSize == PixelSize(width: 100, height: 100))
    }

    @Test("a single interleaved baseline scan keeps no coefficient arrays")
    func baselineHasNone() throws {
        // 4032×3024, 4:2:0, SOF0, one scan with all three components.
        let header = try #require(ImageHeader(try Corpus.data("jpeg/large/dog_exif_extended_xmp_icc.jpg")))
        #expect(header.format == .jpeg)
        #expect(header.coefficientBytes == 0)
    }

    @Test("a progressive 5250×3450 4:4:4 photo keeps 657×432 blocks for each of three components")
    func progressive444() throws {
        let header = try #require(ImageHeader(try Corpus.data("jpeg/sdwebimage/TestImageLarge.jpg")))
        // 5250 / 8 = 656.25 → 657 blocks across, 3450 / 8 = 431.25 → 432 down.
        #expect(header.coefficientBytes == 3 * 657 * 432 * 128)
    }

    @Test("a progressive 4:2:0 file pads luma to its 2×2 factors")
    func progressive420() throws {
        // 32×32: luma 4×4 blocks, chroma 2×2 each.
        let small = try #require(ImageHeader(try Corpus.data("jpeg/jpeg-decoder/reftest/mozilla_jpg-progressive.jpg")))
        #expect(small.coefficientBytes == (4 * 4 + 2 * 2 * 2) * 128)
        // 1443×1071: luma ⌈1443·2/16⌉ = 181 → 182 across, ⌈1071·2/16⌉ = 134 down;
        // chroma ⌈1443/16⌉ = 91 across, ⌈1071/16⌉ = 67 down.
        let large = try #require(ImageHeader(try Corpus.data(
            "jpeg/jpeg-decoder/crashtest/imagetestsuite/316be81dfdeeb942e904feb3a77f4f83.jpg")))
        #expect(large.coefficientBytes == (182 * 134 + 2 * 91 * 67) * 128)
    }

    @Test("a sequential file whose first scan carries one component is multi-scan too")
    func nonInterleavedBaseline() throws {
        // 200×192, 4:2:0, SOF0, first SOS with one component. Luma ⌈200·2/16⌉ = 25 → 26
        // across, 24 down; chroma 13 × 12 each.
        let header = try #require(ImageHeader(try Corpus.data(
            "jpeg/jpeg-decoder/crashtest/imagetestsuite/865db3dd2d380626f16b6f9dc6d62dba.jpg")))
        #expect(header.coefficientBytes == (26 * 24 + 2 * 13 * 12) * 128)
    }
}
