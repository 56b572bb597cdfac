import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// Formats WebImage recognises but has no decoder for (SVG, PDF): sniffing names them,
/// decoding fails with `unsupportedFormat`, never a crash. AVIF, HEIC/HEIF and JPEG XL
/// have decoders now (AVIFCoderTests, HEIFCoderTests, JXLCoderTests).
@Suite("Formats without a decoder")
struct UnsupportedFormatTests {
    static let rows = Corpus.entries.filter {
        ["svg", "pdf"].contains($0.format)
    }

    @Test("the corpus has files of every undecodable format")
    func present() {
        #expect(Set(Self.rows.map(\.format)).isSuperset(of: ["svg", "pdf"]))
    }

    @Test("decoding fails with unsupportedFormat, or badImageData for corrupt ones", arguments: rows)
    func decodeFails(entry: Corpus.Entry) throws {
        let data = try entry.data()
        #expect(ImageCodersManager.shared.canDecode(data) == false)
        do {
            _ = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
            Issue.record("\(entry.path) decoded, but no decoder for \(entry.format) exists")
        } catch {
            #expect(error.code == .unsupportedFormat || (entry.expect == "fail" && error.code == .badImageData),
                    "\(entry.path): \(error)")
        }
    }
}
