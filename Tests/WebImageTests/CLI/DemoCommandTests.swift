import Foundation
import Testing

@Suite("webimage demo: the report's facts", .timeLimit(.minutes(3)))
struct DemoCommandTests {
    /// The first capture of `pattern` in `text`, as an integer.
    func number(_ pattern: String, in text: String) throws -> Int? {
        let regex = try NSRegularExpression(pattern: pattern)
        guard let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range(at: 1), in: text) else { return nil }
        return Int(text[range])
    }

    @Test("demo exits 0; 50 loads reach the origin once, the dead URL is blocked, partial images arrive")
    func demo() async throws {
        let run = try await WebImageTool.run(["demo", "--width", "24"])
        #expect(run.status == 0, "\(run.err)")
        let out = run.out
        #expect(!out.contains("✗"), "a check failed:\n\(out)")
        #expect(try number(#"✓ 50 concurrent loads reached the origin (\d+) time"#, in: out) == 1)
        #expect(out.contains("blackListed (1003)") && out.contains("invalidDownloadStatusCode (2001)"))
        #expect(try number(#"✓ second try blocked without a request \(origin saw (\d+) request"#, in: out) == 1)
        #expect(try number(#"✓ (\d+) partial images before the final one"#, in: out) ?? 0 > 0)
        #expect(out.contains("from network") && out.contains("from memory cache") && out.contains("from disk cache"))
        #expect(out.contains("✓ temporary cache removed"))
        #expect(out.contains("\u{1B}[38;2;") && out.contains("▀"))
        // Decoration stays off stderr when it is not a terminal.
        #expect(!run.err.contains("\r"))
    }
}
