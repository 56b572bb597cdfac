import Foundation
import Testing
import WebImageServer

/// `/info` over every file of the corpus that decodes (MANIFEST.tsv's `ok` rows: JPEG, PNG,
/// APNG, GIF, WebP, AVIF, HEIC/HEIF, JPEG XL; stills and animations), served from a local
/// root at the corpus folder. The expected format, size, display dimensions and frame count
/// come from MANIFEST.tsv, written by Pillow/libavif/libheif when the corpus was assembled,
/// never from our decoder.
@Suite("/info over the corpus", .serialized)
struct InfoCorpusTests {
    /// One `ok` row of MANIFEST.tsv.
    struct Row: Sendable, CustomStringConvertible {
        var path: String
        var bytes: Int
        var format: String
        var width: Int
        var height: Int
        var frames: Int
        var description: String { path }
    }

    static let rows: [Row] = {
        let manifest = Fixtures.corpus.appendingPathComponent("MANIFEST.tsv")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line -> Row? in
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count >= 12, c[3] == "ok", let bytes = Int(c[1]) else { return nil }
            // The size as shown: after EXIF orientation / irot, else as stored.
            let shown = c[8].split(separator: "x").compactMap { Int($0) }
            let size = shown.count == 2 ? shown : [Int(c[4]), Int(c[5])].compactMap { $0 }
            guard size.count == 2 else { return nil }
            return Row(path: c[0], bytes: bytes, format: c[2], width: size[0], height: size[1], frames: Int(c[6]) ?? 1)
        }
    }()

    /// imgproxy's name for a MANIFEST format: libvips loads an APNG as a PNG.
    static func shownFormat(_ manifest: String) -> String { manifest == "apng" ? "png" : manifest }

    /// `/info/unsafe/pn:1/{base64url(local:///path)}`. imgproxy takes a `local://` path
    /// literally (nothing percent-decoded), so a name with `#` or `(` goes in as it is.
    static func path(_ row: Row) -> String {
        let source = Data("local:///\(row.path)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "/info/unsafe/pn:1/" + source
    }

    /// The frames an animation shows. Pillow (MANIFEST) counts an APNG's default image when
    /// it is not part of the animation; acTL's frame count, which browsers play, does not.
    static func shownFrames(_ row: Row) -> Int {
        row.path.hasSuffix("apng-skip-idat.png") ? row.frames - 1 : row.frames
    }

    @Test("The corpus has every format, stills and animations, and one over the frame limit")
    func coverage() {
        let formats = Set(Self.rows.map(\.format))
        #expect(formats.isSuperset(of: ["jpeg", "png", "apng", "gif", "webp", "avif", "heic", "jxl"]))
        let animated = Set(Self.rows.filter { $0.frames > 1 }.map(\.format))
        #expect(animated.isSuperset(of: ["apng", "gif", "webp", "avif"]))
        #expect(Self.rows.count > 800)
        #expect(Self.rows.contains { $0.width * $0.height * $0.frames > 50_000_000 })
    }

    @Test("Every decodable corpus file: imgproxy's format, MIME type, size, shown dimensions and frame count")
    func everyFile() async throws {
        var config = ProxyConfig.testing
        config.localRoot = Fixtures.corpus
        let rows = Self.rows
        try await ProxyHarness.with(config) { proxy in
            // Four at a time: the suite's time, not the proxy's limits, is what this bounds.
            var next = 0
            try await withThrowingTaskGroup(of: (Row, ProxyHarness.Answer).self) { group in
                func start() {
                    guard next < rows.count else { return }
                    let row = rows[next]
                    next += 1
                    group.addTask { (row, try await proxy.get(Self.path(row))) }
                }
                for _ in 0..<4 { start() }
                while let (row, answer) = try await group.next() {
                    start()
                    // The documented source limit counts every frame: 50 million pixels.
                    if row.width * row.height * row.frames > 50_000_000 {
                        #expect(answer.status == 422, "\(row)")
                        #expect(String(decoding: answer.body, as: UTF8.self).contains("imageTooLarge"), "\(row)")
                        continue
                    }
                    #expect(answer.status == 200, "\(row): \(String(decoding: answer.body, as: UTF8.self))")
                    guard answer.status == 200,
                          let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
                    else { continue }
                    let format = Self.shownFormat(row.format)
                    #expect(object["format"] as? String == format, "\(row)")
                    #expect(object["mime_type"] as? String == "image/" + format, "\(row)")
                    #expect(object["size"] as? Int == row.bytes, "\(row)")
                    #expect(object["width"] as? Int == row.width, "\(row)")
                    #expect(object["height"] as? Int == row.height, "\(row)")
                    #expect(object["pages_number"] as? Int == Self.shownFrames(row), "\(row)")
                }
            }
        }
    }
}
