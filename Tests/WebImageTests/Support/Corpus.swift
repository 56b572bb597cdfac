import Foundation

/// The test corpus (`Tests/Fixtures/corpus` in the repository, or `$WEBIMAGE_CORPUS`)
/// and its MANIFEST.tsv.
enum Corpus {
    /// One MANIFEST.tsv row.
    struct Entry: Sendable, CustomStringConvertible {
        var path: String
        var bytes: Int
        var format: String
        var expect: String
        var width: Int?
        var height: Int?
        var frames: Int?
        var loop: Int?
        /// Display size after EXIF orientation, `(w, h)`.
        var display: (width: Int, height: Int)?
        var note: String

        var url: URL { Corpus.root.appendingPathComponent(path) }
        func data() throws -> Data { try Data(contentsOf: url) }
        var description: String { path }
    }

    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["WEBIMAGE_CORPUS"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        return packageRoot.appendingPathComponent("Tests/Fixtures/corpus")
    }()

    /// All rows; empty (and the tests using it fail) when the corpus is missing.
    static let entries: [Entry] = {
        guard let text = try? String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8) else {
            return []
        }
        return text.split(separator: "\n").dropFirst().compactMap { line -> Entry? in
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count >= 12 else { return nil }
            var display: (Int, Int)?
            let d = c[8].split(separator: "x")
            if d.count == 2, let w = Int(d[0]), let h = Int(d[1]) { display = (w, h) }
            return Entry(
                path: c[0], bytes: Int(c[1]) ?? 0, format: c[2], expect: c[3],
                width: Int(c[4]), height: Int(c[5]), frames: Int(c[6]), loop: Int(c[7]),
                display: display, note: c[11])
        }
    }()

    /// Rows of `format` (as MANIFEST names it) with one of the `expect` values.
    static func entries(format: String, expect: Set<String>) -> [Entry] {
        entries.filter { $0.format == format && expect.contains($0.expect) }
    }

    /// The data of a file by its corpus path.
    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(path))
    }
}
