import Foundation
import Testing

/// The README's examples compile because they are in `Snippets.swift`; this checks that
/// every ```swift block of the README is there, so the two cannot drift apart.
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

    @Test("every ```swift block of README.md is in Snippets.swift, in one piece")
    func everyBlockIsCompiled() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let snippets = try String(
            contentsOf: Self.root.appendingPathComponent("Tests/ReadmeSnippetsTests/Snippets.swift"), encoding: .utf8)
        let compiled = Self.lines(snippets)
        let blocks = Self.swiftBlocks(in: readme)
        #expect(blocks.count >= 8, "the README has its examples")
        for block in blocks {
            let wanted = Self.lines(block).filter { $0 != "import WebImage" }
            let found = compiled.indices.contains { start in
                start + wanted.count <= compiled.count && Array(compiled[start..<start + wanted.count]) == wanted
            }
            #expect(found, "README block not in Snippets.swift:\n\(block)")
        }
    }
}
