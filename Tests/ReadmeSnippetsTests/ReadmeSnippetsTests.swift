import Foundation
import Testing

/// The examples of the README and of the DocC catalog's articles compile because they are in
/// `Snippets.swift` (the SDWebImage-style ones, which begin `import WebImageCompat`, in
/// `CompatSnippets.swift`); this checks that every ```swift block of them is there, so the
/// two cannot drift apart.
@Suite("README snippets")
struct ReadmeSnippetsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The non-blank lines of `text`, trimmed, so indentation does not matter.
    static func lines(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The bodies of the blocks fenced exactly as ```swift (other tags, such as
    /// `swift package-manifest`, are not compiled).
    static func swiftBlocks(in readme: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line.hasPrefix("```") {
                blocks.append((current ?? []).joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// README.md and every article of `Sources/WebImage/WebImage.docc`.
    static func documents() throws -> [URL] {
        let catalog = root.appendingPathComponent("Sources/WebImage/WebImage.docc")
        let articles = try FileManager.default.contentsOfDirectory(at: catalog, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }
        return [root.appendingPathComponent("README.md")] + articles.sorted { $0.path < $1.path }
    }

    @Test("every ```swift block of README.md and of the DocC articles is in Snippets.swift, in one piece; those that import WebImageCompat in CompatSnippets.swift")
    func everyBlockIsCompiled() throws {
        let folder = Self.root.appendingPathComponent("Tests/ReadmeSnippetsTests")
        let compiled = Self.lines(try String(contentsOf: folder.appendingPathComponent("Snippets.swift"), encoding: .utf8))
        let compat = Self.lines(try String(contentsOf: folder.appendingPathComponent("CompatSnippets.swift"), encoding: .utf8))
        // The compat file compiles against WebImageCompat alone, so its blocks need nothing more.
        #expect(compat.contains("import WebImageCompat"))
        #expect(!compat.contains("import WebImage"))
        let documents = try Self.documents()
        #expect(documents.count >= 7, "the README and the catalog's six articles")
        let blocks = try documents.flatMap { url in
            Self.swiftBlocks(in: try String(contentsOf: url, encoding: .utf8)).map { (url.lastPathComponent, $0) }
        }
        #expect(blocks.count >= 12, "the documents have their examples")
        #expect(blocks.contains { Self.lines($0.1).contains("import WebImageCompat") }, "the callback form's example")
        for (document, block) in blocks {
            let all = Self.lines(block)
            let source = all.contains("import WebImageCompat") ? compat : compiled
            // A block's imports are its file's: each at the top of the file, the rest in one piece.
            let imports = all.filter { $0.hasPrefix("import ") }
            for line in imports where line != "import WebImage" && line != "import WebImageCompat" {
                #expect(source.contains(line), "\(document) has a block that needs `\(line)`, which its file lacks")
            }
            let wanted = all.filter { !$0.hasPrefix("import ") }
            let found = source.indices.contains { start in
                start + wanted.count <= source.count && Array(source[start..<start + wanted.count]) == wanted
            }
            #expect(found, "a block of \(document) is not in \(source == compat ? "CompatSnippets" : "Snippets").swift:\n\(block)")
        }
    }
}
