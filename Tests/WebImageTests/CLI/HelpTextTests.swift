import Foundation
import Testing

/// What `--help` and `--version` say, checked against what the tool does.
@Suite("webimage --help and --version", .timeLimit(.minutes(2)))
struct HelpTextTests {
    /// MANIFEST's format names, and how a person names them.
    static let formatNames: [(manifest: String, shown: String)] = [
        ("jpeg", "JPEG"), ("png", "PNG"), ("apng", "APNG"), ("gif", "GIF"), ("webp", "WebP"),
        ("avif", "AVIF"), ("heic", "HEIC"), ("heif", "HEIF"), ("jxl", "JPEG XL"),
    ]

    @Test("--help names every format the tool decodes, and a corpus file of each decodes")
    func formats() async throws {
        let help = try await WebImageTool.run(["--help"])
        #expect(help.status == 0)
        let text = help.out.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "  ", with: " ")
        for (manifest, shown) in Self.formatNames {
            let entry = try #require(Corpus.entries(format: manifest, expect: ["ok"]).first, "no \(manifest) file")
            let run = try await WebImageTool.run(["decode", entry.url.path, "--json"])
            #expect(run.status == 0, "\(entry.path): \(run.err)")
            #expect(text.contains(shown), "--help does not name \(shown): \(help.out)")
        }
    }

    @Test("--version prints a version number and exits 0")
    func version() async throws {
        let run = try await WebImageTool.run(["--version"])
        #expect(run.status == 0)
        #expect(run.out.trimmingCharacters(in: .whitespacesAndNewlines).wholeMatch(of: /\d+\.\d+\.\d+/) != nil, "\(run.out)")
    }

    @Test("fetch --help gives the dataset mode's own defaults beside the plain ones, and --out's naming")
    func fetchDefaults() async throws {
        let run = try await WebImageTool.run(["fetch", "--help"])
        #expect(run.status == 0)
        let text = run.out.replacingOccurrences(of: "\n", with: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        // img2dataset's own defaults: thread_count 64 (its README's examples), timeout 10.
        #expect(text.contains("default: fetch 6, prefetch 3; with img2dataset's flags 64"), "\(run.out)")
        #expect(text.contains("default 15; with img2dataset's flags 10"), "\(run.out)")
        #expect(text.contains("named by list index"), "\(run.out)")
        #expect(text.contains("--log-failures"))
    }

    @Test("serve --help shows each setting's default")
    func serveDefaults() async throws {
        let run = try await WebImageTool.run(["serve", "--help"])
        #expect(run.status == 0)
        let text = run.out.replacingOccurrences(of: "\n", with: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        // imgproxy-like defaults as the proxy article documents them.
        for fragment in ["default 8080", "default 127.0.0.1", "default 32)", "default 30)", "default 256)", "default 80)",
                         "default 50000000)", "default 500)", "default 31536000)", "default 4)", "default info"] {
            #expect(text.contains(fragment), "serve --help lacks '\(fragment)'")
        }
    }
}
