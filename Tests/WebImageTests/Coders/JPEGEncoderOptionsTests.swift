import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("JPEGCoder: progressive output and optimized Huffman tables", .timeLimit(.minutes(2)))
struct JPEGEncoderOptionsTests {
    let coder = JPEGCoder()

    /// The start-of-frame markers (0xC0…0xCF, less DHT C4, JPG C8 and DAC CC) in `data`,
    /// read segment by segment up to the first scan.
    static func frameMarkers(_ data: Data) -> [UInt8] {
        let b = [UInt8](data)
        var markers: [UInt8] = []
        var i = 2
        while i + 4 <= b.count, b[i] == 0xFF {
            let marker = b[i + 1]
            if marker == 0xDA { break }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) { markers.append(marker) }
            i += 2 + (Int(b[i + 2]) << 8 | Int(b[i + 3]))
        }
        return markers
    }

    func photo() throws -> DecodedImage {
        try coder.decode(Corpus.data("jpeg/libavif/paris_exif_orientation_5.jpg"), options: ImageDecodeOptions())
    }

    @Test("the default is baseline (SOF0); progressive writes SOF2 and decodes to the same picture")
    func progressive() throws {
        let image = try photo()
        let baseline = try coder.encode(image, as: .jpeg, options: ImageEncodeOptions(quality: 0.85))
        let progressive = try coder.encode(image, as: .jpeg, options: ImageEncodeOptions(quality: 0.85, progressive: true))
        #expect(Self.frameMarkers(baseline) == [0xC0])
        #expect(Self.frameMarkers(progressive) == [0xC2])
        let a = try coder.decode(baseline, options: ImageDecodeOptions())
        let b = try coder.decode(progressive, options: ImageDecodeOptions())
        let d = try #require(GeneratedFixtures.difference(a.pixels, b.pixels))
        // Same quantised coefficients; only libjpeg's progressive block smoothing and IDCT
        // rounding differ, by a unit or two.
        #expect(d.mean < 0.5 && d.max <= 8, "baseline and progressive differ by up to \(d.max), mean \(d.mean)")
    }

    @Test("optimized Huffman tables (the default) make a smaller file with identical pixels")
    func optimized() throws {
        let image = try photo()
        let standard = try coder.encode(image, as: .jpeg, options: ImageEncodeOptions(quality: 0.85, optimizeHuffmanTables: false))
        let optimized = try coder.encode(image, as: .jpeg, options: ImageEncodeOptions(quality: 0.85))
        #expect(optimized.count < standard.count, "optimized \(optimized.count) bytes, standard \(standard.count)")
        let a = try coder.decode(standard, options: ImageDecodeOptions())
        let b = try coder.decode(optimized, options: ImageDecodeOptions())
        #expect(a.pixels == b.pixels, "Huffman coding is lossless: the same coefficients decode to the same pixels")
    }
}
