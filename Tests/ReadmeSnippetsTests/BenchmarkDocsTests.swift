import Foundation
import Testing

/// Benchmarks/README.md names only paths that exist, and Benchmarks/RESULTS.md opens with the
/// latest run (its date, its chart, its tables) with the history below it, as `compare` writes it.
@Suite("The benchmark documents")
struct BenchmarkDocsTests {
    static let root = ReadmeSnippetsTests.root
    static let benchmarks = root.appendingPathComponent("Benchmarks")

    @Test("every path Benchmarks/README.md names exists: `Benchmarks/…` from the root, the others from Benchmarks/ or the root")
    func readmePaths() throws {
        let readme = try String(contentsOf: Self.benchmarks.appendingPathComponent("README.md"), encoding: .utf8)
        let paths = readme.matches(of: #/`([A-Za-z._][A-Za-z0-9._/-]*/[A-Za-z0-9._/-]*)`/#).map { String($0.output.1) }
            .filter { !$0.hasPrefix(".build") }   // made by a run
        #expect(paths.count >= 10, "\(paths)")
        let files = FileManager.default
        for path in paths {
            let fromRoot = files.fileExists(atPath: Self.root.appendingPathComponent(path).path)
            let fromHere = files.fileExists(atPath: Self.benchmarks.appendingPathComponent(path).path)
            #expect(path.hasPrefix("Benchmarks/") ? fromRoot : (fromHere || fromRoot), "Benchmarks/README.md names \(path)")
        }
    }

    @Test("RESULTS.md's first section is the latest run, with its date, chart and tables; the history comes after it")
    func resultsLatestFirst() throws {
        let results = try String(contentsOf: Self.benchmarks.appendingPathComponent("RESULTS.md"), encoding: .utf8)
        let headings = results.split(separator: "\n").filter { $0.hasPrefix("## ") }.map(String.init)
        #expect(headings.first?.hasPrefix("## Latest run") == true, "\(headings)")
        #expect(headings.contains("## History"))
        let latest = results.components(separatedBy: "\n## ")[1]
        let date = try #require(latest.firstMatch(of: #/\n- date: ([^\n]+)/#), "the latest run has no date")
        #expect(latest.contains("![Each row's ratio against its goal](ratios.svg)"))
        let rows = latest.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| work |") }
        #expect(rows.count >= 20, "the latest run's rows")
        // The chart is of these rows: its title carries their date.
        let chart = try String(contentsOf: Self.benchmarks.appendingPathComponent("ratios.svg"), encoding: .utf8)
        #expect(chart.contains(String(date.output.1)), "ratios.svg is not the chart of the latest run (\(date.output.1))")
        let history = try #require(results.range(of: "\n## History"))
        #expect(results[history.upperBound...].contains("### "), "the history keeps the older runs")
    }
}
