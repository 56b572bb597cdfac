import Foundation
import Testing
import WebImageTestOrigin

/// Dataset JPEGs carry the standard Huffman tables, as img2dataset's OpenCV `imencode`
/// writes them (its `IMWRITE_JPEG_OPTIMIZE` is off by default), not tables optimised for
/// the image: the bulk article's claim. The expected tables are the JPEG standard's
/// (ITU-T T.81 Annex K.3, Tables K.3–K.6), written out here.
@Suite("webimage fetch: dataset JPEGs use the standard Huffman tables", .timeLimit(.minutes(2)))
struct DatasetJPEGTablesTests {
    /// Table K.3 (luminance DC) and K.4 (chrominance DC): code counts per length 1…16,
    /// then the symbols.
    static let luminanceDC: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0] + Array(0...11)
    static let chrominanceDC: [UInt8] = [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0] + Array(0...11)
    /// Table K.5 (luminance AC): the code counts per length (its 162 symbols follow).
    static let luminanceACCounts: [UInt8] = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d]

    /// The DHT tables of a JPEG stream, keyed by class << 4 | id, each as its 16 counts
    /// and symbols.
    static func huffmanTables(_ bytes: [UInt8]) throws -> [UInt8: [UInt8]] {
        var tables: [UInt8: [UInt8]] = [:]
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if marker == 0xDA { break }
            let end = i + 2 + length
            try #require(end <= bytes.count, "segment past the end")
            if marker == 0xC4 {
                var j = i + 4
                while j + 17 <= end {
                    let counts = Array(bytes[(j + 1)...(j + 16)])
                    let total = counts.reduce(0) { $0 + Int($1) }
                    try #require(j + 17 + total <= end, "table past its segment")
                    tables[bytes[j]] = counts + Array(bytes[(j + 17)..<(j + 17 + total)])
                    j += 17 + total
                }
            }
            i = end
        }
        return tables
    }

    @Test("A q95 border-256 sample carries Annex K's DC and AC tables")
    func standardTables() async throws {
        try await TestOrigin.with { origin in
            // A photo: optimised tables for it would differ from Annex K's.
            let photo = try Corpus.data(DatasetFixture.jpegPath)
            origin.route("/photo.jpg", .init(body: Array(photo), contentType: "image/jpeg"))
            let work = try TemporaryDirectory()
            let list = try DatasetFixture.write(origin.url("/photo.jpg").absoluteString + "\n", "list.txt", in: work)
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run(["img2dataset", "--url_list=\(list)", "--output_folder=\(out.path)",
                                                  "--output_format=files", "--image_size=256", "--encode_quality=95"])
            #expect(run.status == 0, "\(run.err)")
            let sample = out.appendingPathComponent("00000/000000000.jpg")
            let tables = try Self.huffmanTables([UInt8](Data(contentsOf: sample)))
            #expect(tables[0x00] == Self.luminanceDC)
            #expect(tables[0x01] == Self.chrominanceDC)
            #expect(tables[0x10].map { Array($0.prefix(16)) } == Self.luminanceACCounts)
        }
    }
}
