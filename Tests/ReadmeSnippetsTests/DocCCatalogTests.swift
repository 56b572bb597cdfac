import Foundation
import Testing

/// The DocC catalog (`Sources/WebImage/WebImage.docc`) builds, as `make docs` builds it, with
/// no warning about its articles (a broken `<doc:>` link, a heading DocC cannot place), and
/// every article is reachable from the catalog's root page and from the README.
@Suite("The DocC catalog", .timeLimit(.minutes(2)))
struct DocCCatalogTests {
    static let catalog = ReadmeSnippetsTests.root.appendingPathComponent("Sources/WebImage/WebImage.docc")

    static func articles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: catalog.path)
            .filter { $0.hasSuffix(".md") && $0 != "WebImage.md" }.sorted()
    }

    @Test("scripts/docs.sh builds the catalog with the module's symbols and no warning about an article")
    func builds() async throws {
        // The test runner lives in the build directory that compiled the WebImage module.
        let build = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        try #require(FileManager.default.fileExists(atPath: build.appendingPathComponent("Modules/WebImage.swiftmodule").path),
                     "no WebImage module in \(build.path)")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-docs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try await Self.run(ReadmeSnippetsTests.root.appendingPathComponent("scripts/docs.sh").path,
                                     [build.path, output.path])
        #expect(run.status == 0, "\(run.log)")
        #expect(run.log.contains("0 in the catalog's articles"), "\(run.log)")
        // The root page and each article became a page.
        let pages = output.appendingPathComponent("data/documentation/webimage")
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("data/documentation/webimage.json").path))
        for article in try Self.articles() {
            let page = pages.appendingPathComponent(article.dropLast(3).lowercased() + ".json")
            #expect(FileManager.default.fileExists(atPath: page.path), "\(article) has no page")
        }
    }

    @Test("every article is in the root page's topics and linked from README.md")
    func linked() throws {
        let root = try String(contentsOf: Self.catalog.appendingPathComponent("WebImage.md"), encoding: .utf8)
        let readme = try String(contentsOf: ReadmeSnippetsTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        let articles = try Self.articles()
        #expect(articles.count == 6)
        for article in articles {
            #expect(root.contains("<doc:\(article.dropLast(3))>"), "\(article) is not in WebImage.md's topics")
            #expect(readme.contains("(Sources/WebImage/WebImage.docc/\(article))"), "README.md does not link \(article)")
        }
    }

    /// Runs a program to its end without blocking a thread of the pool: the log (stdout and
    /// stderr) goes to a file read once the termination handler has fired.
    static func run(_ path: String, _ arguments: [String]) async throws -> (status: Int32, log: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-docs-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)   // opening it below fails if this did
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}
