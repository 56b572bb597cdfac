import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("ImageFormat sniffing")
struct ImageFormatTests {
    @Test("the corpus is present")
    func corpusPresent() {
        #expect(Corpus.entries.count > 1000, "corpus not found at \(Corpus.root.path)")
    }

    @Test("every corpus file of a known format is recognised by its signature")
    func corpusFormats() throws {
        let known: [String: ImageFormat] = [
            "jpeg": .jpeg, "png": .png, "apng": .apng, "gif": .gif, "webp": .webp,
            "avif": .avif, "heic": .heic, "heif": .heif, "heics": .heic, "svg": .svg, "pdf": .pdf, "jxl": .jxl,
        ]
        var checked = 0
        for entry in Corpus.entries {
            guard let expected = known[entry.format], entry.expect != "fail" else { continue }
            let data = try entry.data()
            let detected = ImageFormat.detect(data)
            #expect(detected == expected, "\(entry.path): detected \(detected)")
            checked += 1
        }
        #expect(checked > 900)
    }

    @Test("short, empty and unknown data is undefined")
    func undefined() {
        #expect(ImageFormat.detect(Data()) == .undefined)
        #expect(ImageFormat.detect(Data([0xFF])) == .undefined)
        #expect(ImageFormat.detect(Data("hello world".utf8)) == .undefined)
        #expect(ImageFormat.detect(Data([0x89, 0x50, 0x4E])) == .undefined)
    }

    @Test("signatures of formats outside the corpus")
    func otherSignatures() {
        #expect(ImageFormat.detect(Data("BM".utf8) + Data(count: 20)) == .bmp)
        #expect(ImageFormat.detect(Data([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0])) == .tiff)
        #expect(ImageFormat.detect(Data([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8])) == .tiff)
        #expect(ImageFormat.detect(Data([0x00, 0x00, 0x01, 0x00, 1, 0])) == .ico)
        #expect(ImageFormat.detect(Data("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)) == .svg)
        #expect(ImageFormat.detect(Data("%PDF-1.7".utf8)) == .pdf)
    }
}
