import Foundation
import Testing
import WebImageServer

/// `webimage serve --help` gives each setting's default, and the default it gives is the
/// one `ProxyConfig()` starts from.
@Suite("serve --help: every default is the configuration's")
struct ServeHelpDefaultsTests {
    /// The help text of `--flag`: from the flag to the next flag's line, spaces folded.
    static func paragraph(_ flag: String, in help: String) -> String? {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: {
            let line = $0.trimmingCharacters(in: .whitespaces)
            return line.hasPrefix(flag + " ") || line.hasPrefix(flag + ",")
        }) else {
            return nil
        }
        var text = lines[start]
        for line in lines[(start + 1)...] {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("-") || line.isEmpty { break }
            text += " " + line
        }
        return text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test("each documented default equals ProxyConfig()'s")
    func defaults() async throws {
        let run = try await InfoCommandTests.run(["serve", "--help"])
        #expect(run.status == 0)
        let c = ProxyConfig()
        let expected: [(String, String)] = [
            ("--port", "default 8080"), ("--host", "default 127.0.0.1"),
            ("--signature-size", "default \(c.signatureSize)"),
            ("--max-source-pixels", "default \(c.maxSourcePixels)"),
            ("--max-source-bytes", "default \(c.maxSourceBytes)"),
            ("--max-output-pixels", "default \(c.maxOutputPixels)"),
            ("--max-animation-frames", "default \(c.maxAnimationFrames)"),
            ("--timeout", "default \(Int(c.requestTimeout))"),
            ("--max-concurrent-transforms", "here \(c.maxConcurrentTransforms)"),
            ("--max-queue", "default \(c.maxQueuedTransforms)"),
            ("--max-age", "default \(c.maxAge)"),
            ("--cache-max-size", "default \(c.maxCacheBytes / (1 << 30)) GiB"),
            ("--cache-max-age", "default \(Int(c.maxCacheAge) / 86_400) days"),
            ("--memory-cache-size", "default \(c.memoryCacheBytes / (1 << 20)) MiB"),
            ("--quality", "default \(c.output.quality)"),
            ("--io-threads", "default \(c.ioThreads)"),
            ("--s3-region", "default \(c.s3.region)"),
            ("--log-level", "default info"),
        ]
        for (flag, fragment) in expected {
            let text = try #require(Self.paragraph(flag, in: String(decoding: run.out, as: UTF8.self)), "\(flag) is not in serve --help")
            #expect(text.contains(fragment), "\(flag): '\(fragment)' not in: \(text)")
        }
    }
}
