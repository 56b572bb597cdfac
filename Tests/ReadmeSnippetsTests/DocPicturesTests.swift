import Foundation
import Testing

/// The pictures of README.md, the DocC articles and Benchmarks/RESULTS.md: each one referenced
/// exists, is a real image of a sane size and weight, and is made again by `make docs`
/// (scripts/docs-pictures.py) or, for the benchmark chart, by `make bench` itself. Making them
/// is `make docs`' job, not this test's: it only checks what is checked in.
@Suite("The documentation's pictures")
struct DocPicturesTests {
    static let root = ReadmeSnippetsTests.root
    static let resources = DocCCatalogTests.catalog.appendingPathComponent("Resources")

    /// A picture reference, `![alt](target)`, in `document`.
    struct Reference: CustomStringConvertible {
        let document: String
        let target: String
        let file: URL
        var description: String { "\(document): \(target)" }
    }

    /// Every `![alt](target)` of README.md (paths relative to the root), of the catalog's
    /// articles (names of files in the catalog's Resources, as DocC looks them up) and of
    /// Benchmarks/RESULTS.md (relative to Benchmarks/).
    static func references() throws -> [Reference] {
        var references: [Reference] = []
        func scan(_ url: URL, resolve: (String) -> URL) throws {
            let text = try String(contentsOf: url, encoding: .utf8)
            for match in text.matches(of: #/!\[[^\]]*\]\(([^)\s]+)\)/#) {
                let target = String(match.output.1)
                references.append(Reference(document: url.lastPathComponent, target: target, file: resolve(target)))
            }
        }
        try scan(root.appendingPathComponent("README.md")) { root.appendingPathComponent($0) }
        for article in try DocCCatalogTests.articles() + ["WebImage.md"] {
            try scan(DocCCatalogTests.catalog.appendingPathComponent(article)) { resources.appendingPathComponent($0) }
        }
        let benchmarks = root.appendingPathComponent("Benchmarks")
        try scan(benchmarks.appendingPathComponent("RESULTS.md")) { benchmarks.appendingPathComponent($0) }
        return references
    }

    /// Width and height of a PNG (IHDR), a JPEG (its first SOFn) or an SVG (the root's
    /// width and height attributes), or nil when `data` is none of these.
    static func imageSize(_ data: Data, name: String) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data)
        func be16(_ i: Int) -> Int { Int(bytes[i]) << 8 | Int(bytes[i + 1]) }
        func be32(_ i: Int) -> Int { be16(i) << 16 | be16(i + 2) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), bytes.count > 24,
           bytes[12..<16].elementsEqual("IHDR".utf8) {
            return (be32(16), be32(20))
        }
        if bytes.starts(with: [0xFF, 0xD8]) {
            var i = 2
            while i + 9 < bytes.count, bytes[i] == 0xFF {
                let marker = bytes[i + 1]
                if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                    return (be16(i + 7), be16(i + 5))
                }
                i += 2 + be16(i + 2)
            }
            return nil
        }
        if name.hasSuffix(".svg"), let text = String(data: data, encoding: .utf8),
           let tag = text.firstMatch(of: #/<svg\b[^>]*>/#), text.hasSuffix("</svg>\n") || text.hasSuffix("</svg>"),
           let width = tag.output.firstMatch(of: #/\swidth="(\d+)"/#), let height = tag.output.firstMatch(of: #/\sheight="(\d+)"/#),
           let w = Int(width.output.1), let h = Int(height.output.1) {
            return (w, h)
        }
        return nil
    }

    @Test("every picture the README, the articles and RESULTS.md show exists, is a PNG, JPEG or SVG of sane size, under 100 KB")
    func picturesExist() throws {
        let references = try Self.references()
        let names = Set(references.map { $0.file.lastPathComponent })
        #expect(names.isSuperset(of: ["thumbnails.jpg", "gallery.png", "resizing.jpg", "ratios.svg"]),
                "the four pictures are shown somewhere: \(references)")
        #expect(references.contains { $0.document == "README.md" }, "README.md shows no picture")
        for reference in references {
            guard let data = FileManager.default.contents(atPath: reference.file.path) else {
                Issue.record("\(reference) does not exist (\(reference.file.path))")
                continue
            }
            #expect(data.count < 100_000, "\(reference) is \(data.count) bytes")
            guard let size = Self.imageSize(data, name: reference.file.lastPathComponent) else {
                Issue.record("\(reference) is not a PNG, JPEG or SVG")
                continue
            }
            #expect((200...2400).contains(size.width) && (150...2400).contains(size.height),
                    "\(reference) is \(size.width)×\(size.height)")
        }
    }

    @Test("every file in the catalog's Resources is shown by an article (none left behind)")
    func noOrphans() throws {
        let shown = Set(try Self.references().filter { $0.document != "README.md" && $0.document != "RESULTS.md" }
            .map { $0.file.lastPathComponent })
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.resources.path).filter { !$0.hasPrefix(".") }
        #expect(!files.isEmpty)
        #expect(Set(files).subtracting(shown).sorted() == [], "in Resources but in no article")
    }

    @Test("make docs runs scripts/docs-pictures.py, which writes every picture of the catalog; compare writes ratios.svg")
    func regenerated() throws {
        let makefile = try String(contentsOf: Self.root.appendingPathComponent("Makefile"), encoding: .utf8)
        #expect(Self.recipe("docs", in: makefile).contains("docs-pictures"), "make docs does not make the pictures")
        #expect(Self.recipe("docs-pictures", in: makefile).contains("scripts/docs-pictures.py"))
        let script = try String(contentsOf: Self.root.appendingPathComponent("scripts/docs-pictures.py"), encoding: .utf8)
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.resources.path).filter { !$0.hasPrefix(".") }
        for file in files {
            #expect(script.contains("\"\(file)\""), "scripts/docs-pictures.py does not write \(file)")
        }
        #expect(script.contains("Benchmarks/ratios.svg"))
        let compare = try String(contentsOf: Self.root.appendingPathComponent("Benchmarks/compare"), encoding: .utf8)
        #expect(compare.contains("ratio_chart_svg(") && compare.contains("\"ratios.svg\""),
                "Benchmarks/compare does not write ratios.svg")
    }

    /// The recipe lines of `target` in a Makefile (the tab-indented lines after `target:`).
    static func recipe(_ target: String, in makefile: String) -> String {
        var lines: [Substring] = []
        var inside = false
        for line in makefile.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("\(target):") {
                inside = true
            } else if inside {
                guard line.hasPrefix("\t") else { break }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }
}
