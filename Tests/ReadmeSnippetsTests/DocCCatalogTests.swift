import Foundation
import Testing

/// The one DocC catalog (`Sources/WebImage/WebImage.docc`) documents the four library
/// modules in one site, as `make docs` builds it, with no warning at all: a broken link in a
/// doc comment or an article, an undocumented or unknown parameter, a heading DocC cannot
/// place. Every article is reachable from the root page and from the README, and each module
/// has a page that says what it is and where its work runs.
@Suite("The DocC catalog", .timeLimit(.minutes(2)))
struct DocCCatalogTests {
    static let catalog = ReadmeSnippetsTests.root.appendingPathComponent("Sources/WebImage/WebImage.docc")
    /// The library products (Package.swift), each a module with a page in the catalog.
    static let modules = ["WebImageCodecs", "WebImage", "WebImageCompat", "WebImageServer"]

    static func articles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: catalog.path)
            .filter { $0.hasSuffix(".md") && !modules.contains(String($0.dropLast(3))) }.sorted()
    }

    /// scripts/docs.sh runs the docc and swift-symbolgraph-extract that sit beside `swift`.
    static var toolchainHasDocC: Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let swift = URL(fileURLWithPath: String(directory)).appendingPathComponent("swift")
            guard FileManager.default.isExecutableFile(atPath: swift.path) else { continue }
            let bin = swift.resolvingSymlinksInPath().deletingLastPathComponent()
            return ["docc", "swift-symbolgraph-extract"].allSatisfy {
                FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent($0).path)
            }
        }
        return false
    }

    @Test("scripts/docs.sh builds one site for the four modules with no warning",
          .enabled(if: toolchainHasDocC, "the toolchain beside `swift` has no docc or swift-symbolgraph-extract"))
    func builds() async throws {
        // The test runner lives in the build directory that compiled the library modules.
        let build = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for module in Self.modules {
            try #require(FileManager.default.fileExists(atPath: build.appendingPathComponent("Modules/\(module).swiftmodule").path),
                         "no \(module) module in \(build.path)")
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-docs-\(UUID().uuidString)")
        let symbols = output.appendingPathExtension("symbols")
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: symbols)
        }
        let run = try await Self.run(ReadmeSnippetsTests.root.appendingPathComponent("scripts/docs.sh").path,
                                     [build.path, output.path], environment: ["DOCS_SYMBOLS_DIR": symbols.path])
        #expect(run.status == 0, "\(run.log)")
        #expect(run.log.contains("; 0 warnings)"), "\(run.log)")
        let data = output.appendingPathComponent("data/documentation")
        func page(_ path: String) -> Bool {
            FileManager.default.fileExists(atPath: data.appendingPathComponent(path + ".json").path)
        }
        // The landing page lists the four modules, and each module became a page.
        let landing = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("data/documentation.json")))
        let listed = Set(((landing as? [String: Any])?["references"] as? [String: Any] ?? [:]).values
            .compactMap { ($0 as? [String: Any])?["url"] as? String })
        for module in Self.modules {
            #expect(page(module.lowercased()), "\(module) has no page")
            #expect(listed.contains("/documentation/\(module.lowercased())"), "the landing page does not list \(module)")
        }
        // Each article became a page under WebImage.
        for article in try Self.articles() {
            #expect(page("webimage/" + article.dropLast(3).lowercased()), "\(article) has no page")
        }
        // What WebImage adds to a WebImageCodecs type is on that type's page.
        #expect(page("webimagecodecs/pixelbuffer/blurred(radius:)"))
        try Self.expectNoDispatchQueue(inPublicAPIOf: symbols.appendingPathComponent("WebImage.symbols.json"))
    }

    /// Issue #48: the callback queues are WebImageCompat's; no public declaration of
    /// WebImage (a type, property, parameter or result) names `DispatchQueue`. Read from
    /// the compiler's own symbol graph of the module (public symbols only), so a
    /// declaration spread over lines or written with a type alias is seen as well.
    static func expectNoDispatchQueue(inPublicAPIOf graph: URL) throws {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: graph)) as? [String: Any]
        let symbols = json?["symbols"] as? [[String: Any]] ?? []
        #expect(symbols.count > 100, "WebImage's symbol graph looks empty")
        var named: [String] = []
        for symbol in symbols {
            let fragments = symbol["declarationFragments"] as? [[String: Any]] ?? []
            let declaration = fragments.compactMap { $0["spelling"] as? String }.joined()
            if declaration.contains("DispatchQueue") {
                let path = (symbol["pathComponents"] as? [String] ?? []).joined(separator: ".")
                named.append("\(path): \(declaration)")
            }
        }
        #expect(named.isEmpty, "public WebImage declarations naming DispatchQueue: \(named)")
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

    @Test("each library module has a page in the catalog that says where its work runs")
    func modulePages() throws {
        let package = try String(contentsOf: ReadmeSnippetsTests.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        for module in Self.modules {
            #expect(package.contains(".library(name: \"\(module)\""), "\(module) is no library product")
            let text = try String(contentsOf: Self.catalog.appendingPathComponent("\(module).md"), encoding: .utf8)
            #expect(text.hasPrefix("# ``\(module)``\n"), "\(module).md is not the module's page")
            #expect(text.contains("### Where the work runs"), "\(module).md does not say where the work runs")
        }
        #expect(package.components(separatedBy: ".library(name:").count - 1 == Self.modules.count,
                "a library product has no page in the catalog")
    }

    /// Runs a program to its end without blocking a thread of the pool: the log (stdout and
    /// stderr) goes to a file read once the termination handler has fired.
    static func run(
        _ path: String, _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> (status: Int32, log: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-docs-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)   // opening it below fails if this did
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = handle
        process.standardError = handle
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}
