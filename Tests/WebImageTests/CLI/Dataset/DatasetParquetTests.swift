import Foundation
import Testing
import WebImageTestOrigin

/// The bulk article's two one-liners (BulkDatasets.md) (DuckDB, pyarrow) that turn a parquet list into
/// the CSV the job reads. Both run here, as written, in the test venv (`make test-venv`).
@Suite("webimage fetch: the documented parquet one-liners", .serialized, .timeLimit(.minutes(3)))
struct DatasetParquetTests {
    static let venv = Corpus.packageRoot.appendingPathComponent(".build-test/venv/bin")

    /// The article's one-liners: the lines that read `laion.parquet`.
    static func oneLiners() throws -> [String] {
        let article = try String(contentsOf: Corpus.packageRoot.appendingPathComponent(
            "Sources/WebImage/WebImage.docc/BulkDatasets.md"), encoding: .utf8)
        return article.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("python3 -c") && $0.contains("laion.parquet") }
    }

    @Test("duckdb and pyarrow turn a parquet file into a CSV that fetch --input-format csv reads")
    func oneLinersFeedTheJob() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.venv.appendingPathComponent("python3").path),
                     "no \(Self.venv.path)/python3: run `make test-venv`")
        let lines = try Self.oneLiners()
        #expect(lines.count == 2 && lines[0].contains("duckdb") && lines[1].contains("pyarrow"), "\(lines)")
        try await TestOrigin.with { origin in
            let body = try DatasetFixture.png(64, 48)
            let urls = (0..<5).map { i -> String in
                origin.route("/\(i).png", .init(body: body, contentType: "image/png"))
                return origin.url("/\(i).png").absoluteString
            }
            let work = try TemporaryDirectory()
            var env = ProcessInfo.processInfo.environment
            env["PATH"] = Self.venv.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
            // A parquet file with more columns than the job needs, one caption with a comma and a quote.
            let make = """
                import pyarrow as pa, pyarrow.parquet as pq, sys
                urls = sys.argv[1:]
                pq.write_table(pa.table({"url": urls, "caption": [f'photo {i}, "{i}"' for i in range(len(urls))],
                                         "width": list(range(len(urls)))}), "laion.parquet")
                """
            let script = try DatasetFixture.write(make, "make.py", in: work)
            let (made, madeText) = try await SlurmCluster.runCapturing("/bin/bash", ["-c", "cd \"$0\" && python3 \"$1\" \"${@:2}\"",
                                                                                       work.path, script] + urls, environment: env)
            try #require(made == 0, "\(madeText)")
            for (n, line) in lines.enumerated() {
                try? FileManager.default.removeItem(at: work.url.appendingPathComponent("urls.csv"))
                let (status, text) = try await SlurmCluster.runCapturing("/bin/bash", ["-c", "cd \"$0\" && " + line, work.path],
                                                                         environment: env)
                #expect(status == 0, "\(line): \(text)")
                let out = work.url.appendingPathComponent("out\(n)")
                let run = try await WebImageTool.run(["fetch", "--file", work.url.appendingPathComponent("urls.csv").path,
                                                      "--input-format", "csv", "--caption-col", "caption", "--out", out.path])
                #expect(run.status == 0, "\(run.err)")
                let rows = try String(contentsOf: out.appendingPathComponent("00000.jsonl"), encoding: .utf8)
                    .split(separator: "\n").map { try DatasetFixture.object(Data($0.utf8)) }
                #expect(rows.map { $0["url"] as? String } == urls, "\(line)")
                #expect(rows.map { $0["caption"] as? String } == (0..<5).map { "photo \($0), \"\($0)\"" }, "\(line)")
                #expect(rows.allSatisfy { $0["status"] as? String == "success" })
            }
        }
    }
}
