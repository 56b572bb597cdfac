import Foundation
import Testing
import WebImage

/// Figures the documentation states about files in the repository, computed here from those
/// files: the corpus' file count and the muybridge GIF's size decoded whole.
@Suite("Figures in the documentation")
struct DocFiguresTests {
    static let root = ReadmeSnippetsTests.root
    static let corpus = root.appendingPathComponent("Tests/Fixtures/corpus")

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// 1243 → "1,243".
    static func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }

    @Test("README.md's corpus file count is the number of images in Tests/Fixtures/corpus, one MANIFEST.tsv row each")
    func corpusCount() throws {
        let listing = try #require(FileManager.default.enumerator(at: Self.corpus, includingPropertiesForKeys: [.isRegularFileKey]))
        let notImages: Set<String> = ["MANIFEST.tsv", "README.md", "SOURCES.md"]
        var files = 0
        for case let url as URL in listing where !notImages.contains(url.lastPathComponent) {
            if try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true { files += 1 }
        }
        let manifest = try String(contentsOf: Self.corpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        let rows = manifest.split(separator: "\n").dropFirst().filter { !$0.isEmpty }.count
        #expect(files == rows, "\(files) files in the corpus, \(rows) rows in MANIFEST.tsv")
        let readme = try Self.text("README.md")
        #expect(readme.contains("(\(Self.grouped(files)) files with their MANIFEST.tsv"),
                "README.md does not say \(Self.grouped(files)) corpus files")
    }

    @Test("the muybridge GIF decoded whole (frames × canvas × 4 bytes, from its own header) is the size the documents say")
    func muybridgeSize() throws {
        let path = "gif/image-gif/gifplayer-muybridge.gif"
        let data = try Data(contentsOf: Self.corpus.appendingPathComponent(path))
        let animation = try #require(try AnimatedImage(data: data))
        let frames = animation.info.frameCount, canvas = animation.info.canvasSize
        #expect(frames == 380 && canvas.width == 472 && canvas.height == 298, "the documents name it 380 frames of 472×298")
        let bytes = frames * canvas.width * canvas.height * 4
        let megabytes = "\(Int((Double(bytes) / 1e6).rounded())) MB"
        let mebibytes = "\(Int((Double(bytes) / 1_048_576).rounded())) MiB"
        #expect(megabytes == "214 MB" && mebibytes == "204 MiB", "\(bytes) bytes")

        let gettingStarted = try Self.text("Sources/WebImage/WebImage.docc/GettingStarted.md")
        #expect(gettingStarted.contains("= \(Self.grouped(bytes)) bytes"), "GettingStarted.md does not give the bytes")
        #expect(gettingStarted.contains(megabytes) && gettingStarted.contains(mebibytes))
        let legend = try Self.text("Benchmarks/Python/report.py")
        #expect(legend.contains("\(megabytes) of RGBA decoded whole"), "the bench legend's figure")
        // No document gives another size for the same decode (236 MB was said once).
        let documents = ["README.md", "Sources/WebImage/WebImage.docc/GettingStarted.md", "Benchmarks/README.md",
                         "Benchmarks/Python/report.py", "Benchmarks/compare"]
        for document in documents {
            let text = try Self.text(document)
            for match in text.matches(of: #/(?:decoded whole|instead of|380-frame GIF[^.]*?)[:\s]+(\d+(?:\.\d+)?) MB/#) {
                let stated = Double(match.output.1) ?? 0
                #expect(abs(stated - Double(bytes) / 1e6) < 0.5, "\(document) says \(match.output.0)")
            }
        }
        let results = try Self.text("Benchmarks/RESULTS.md")
        let latest = results.components(separatedBy: "\n## History")[0]
        #expect(!latest.contains("decoded whole: 236 MB"), "RESULTS.md's latest rows")
    }
}
