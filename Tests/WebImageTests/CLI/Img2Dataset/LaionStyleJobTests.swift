import Foundation
import Testing

/// Issue #35's LAION-style job: LAION's kind of metadata (a folder of pyarrow-written parquet,
/// snappy, dictionary-encoded URL and TEXT, float similarity, int sizes, nulls) downloaded from
/// a real nginx on loopback with img2dataset's own LAION-400M invocation, then read the ways
/// its users read the result: the tars through the `webdataset` package, every `NNNNN.parquet`
/// through pandas and DuckDB, the stats files as JSON. What each row must become is derived in
/// the check script from the list and the served folder (``LaionStyleFixture``).
///
/// The time limit guards against a hang: the job takes about 30 s in a debug build and about
/// 3 minutes under ThreadSanitizer (`make test-tsan`), so the limit is 6.
@Suite("webimage img2dataset: a LAION-style parquet job from nginx", .serialized, .timeLimit(.minutes(6)))
struct LaionStyleJobTests {
    /// img2dataset's dataset_examples/laion400m.md (1.47), as its shell reads it:
    ///
    ///     img2dataset --url_list laion400m-meta --input_format "parquet"\
    ///              --url_col "URL" --caption_col "TEXT" --output_format webdataset\
    ///                --output_folder laion400m-data --processes_count 16 --thread_count 128 --image_size 256\
    ///                  --save_additional_columns '["NSFW","similarity","LICENSE"]' --enable_wandb True
    static let laion400m = ["--url_list", "laion400m-meta", "--input_format", "parquet", "--url_col", "URL",
                            "--caption_col", "TEXT", "--output_format", "webdataset", "--output_folder", "laion400m-data",
                            "--processes_count", "16", "--thread_count", "128", "--image_size", "256",
                            "--save_additional_columns", #"["NSFW","similarity","LICENSE"]"#, "--enable_wandb", "True"]

    /// The bulk article's LAION command (BulkDatasets.md), split into words by bash: the lines
    /// from `webimage img2dataset --url_list laion400m-meta` to the first without a `\`.
    static func articleCommand() async throws -> [String] {
        let article = try String(contentsOf: Corpus.packageRoot.appendingPathComponent(
            "Sources/WebImage/WebImage.docc/BulkDatasets.md"), encoding: .utf8)
        let lines = article.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("webimage img2dataset --url_list laion400m-meta") },
                                 "the article has no LAION command")
        var end = start
        while lines[end].hasSuffix("\\"), end + 1 < lines.count { end += 1 }
        let text = lines[start...end].joined(separator: "\n")
        let (status, words) = try await SlurmCluster.runCapturing(
            "/bin/bash", ["-c", #"eval "set -- $1"; printf '%s\n' "$@""#, "bash", text], environment: [:])
        try #require(status == 0, "\(words)")
        return words.split(separator: "\n").map(String.init)
    }

    @Test("10,000 LAION-style rows → one webdataset shard whose samples, parquet metadata and stats agree with the list")
    func laionStyleJob() async throws {
        let python = Img2DatasetFixture.python.path
        try #require(FileManager.default.isExecutableFile(atPath: python), "no \(python): run `make test-venv`")
        let work = try TemporaryDirectory()
        let root = work.url.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try await NginxStaticOrigin.with(root: root, prefix: work.url.appendingPathComponent("nginx")) { nginx in
            let list = work.url.appendingPathComponent("laion400m-meta").path
            let out = work.url.appendingPathComponent("laion400m-data")

            // Given a list that is what it says: snappy, dictionary pages for every chunk, the
            // LAION types, nulls where LAION has them, several row groups.
            let made = try await runPython(LaionStyleFixture.makeScript, [root.path, nginx.baseURL, list], in: work)
            let file = try DatasetFixture.object(Data(made.utf8))
            let columns = try #require(file["columns"] as? [String: [String: Any]])
            #expect(file["rows"] as? Int == 10_000 && (file["rowGroups"] as? Int ?? 0) > 1)
            for (name, type) in [("URL", "BYTE_ARRAY"), ("TEXT", "BYTE_ARRAY"), ("similarity", "DOUBLE"), ("WIDTH", "INT64"),
                                 ("HEIGHT", "INT64")] {
                let column = try #require(columns[name], "no \(name) in \(columns.keys)")
                #expect(column["type"] as? String == type && column["dictionary"] as? Bool == true, "\(name): \(column)")
                #expect(column["compression"] as? [String] == ["SNAPPY"] && (column["nulls"] as? Int ?? 0) > 0, "\(name): \(column)")
            }

            // When the article's LAION command runs on it: img2dataset's LAION-400M line, word for
            // word, with this test's folders for the list and the output.
            let command = try await Self.articleCommand()
            #expect(Array(command.prefix(2)) == ["webimage", "img2dataset"] && Array(command.dropFirst(2)) == Self.laion400m,
                    "\(command)")
            let arguments = command.dropFirst().map { $0 == "laion400m-meta" ? list : $0 == "laion400m-data" ? out.path : $0 }
            let started = ContinuousClock.now
            let run = try await WebImageTool.run(Array(arguments))
            let elapsed = ContinuousClock.now - started
            #expect(run.status == 0, "\(run.err)")
            print("LAION-style job: 10,000 rows in \(elapsed) (debug build)")
            // img2dataset's webdataset writer leaves the tar, its parquet metadata and the stats.
            #expect(Set(TemporaryDirectory.names(in: out)) == ["00000.tar", "00000.parquet", "00000_stats.json"])

            // Then every reader agrees with what the list and the served folder say each row becomes.
            let checked = try await runPython(LaionStyleFixture.checkScript, [list, root.path, out.path, "10000"], in: work)
            let report = try DatasetFixture.object(Data(checked.utf8))
            let expected = try #require(report["expected"] as? [String: Int])
            let success = expected["success"] ?? 0
            // The list holds every kind of row, and the kinds add up to its rows.
            #expect(expected["rows"] == 10_000 && success > 9_000)
            #expect((expected["failed_to_download"] ?? 0) > 0 && (expected["failed_to_resize"] ?? 0) > 0)
            #expect(expected.filter { $0.key != "rows" }.values.reduce(0, +) == 10_000, "\(expected)")
            #expect(report["pandas"] as? [String: Int] == expected, "pandas")
            #expect(report["duckdb"] as? [String: Int] == expected, "DuckDB")
            #expect(report["stats"] as? [String: Int] == expected, "stats files")
            #expect(report["tarSamples"] as? Int == success && report["tarKeysMatch"] as? Bool == true)
            #expect(report["joined"] as? Int == 10_000, "DuckDB join of the metadata back to the list by row")
            #expect((report["problems"] as? [String])?.isEmpty == true, "\(report["problems"] ?? "")")
        }
    }

    /// Runs `script` with the venv's Python; its stdout (the last line), or a failed
    /// requirement with its output.
    private func runPython(_ script: String, _ arguments: [String], in work: TemporaryDirectory) async throws -> String {
        let path = try DatasetFixture.write(script, "script-\(UUID().uuidString).py", in: work)
        let (status, text) = try await SlurmCluster.runCapturing(Img2DatasetFixture.python.path, [path] + arguments,
                                                                 environment: ProcessInfo.processInfo.environment)
        try #require(status == 0, "\(text.suffix(3000))")
        return String(text.split(separator: "\n").last ?? "")
    }
}
