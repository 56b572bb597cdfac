import Foundation
import Testing

/// Rows whose URL is `data:` or `file:` (img2dataset reads both through urllib), a job in
/// which nothing succeeded, and usage errors that must leave no `--out` folder behind.
@Suite("webimage fetch: data: and file: rows, failed jobs, usage errors", .serialized, .timeLimit(.minutes(2)))
struct DatasetLocalURLTests {
    @Test("data: rows load; file: rows load with --allow-file-urls and are refused without it")
    func localURLs() async throws {
        let work = try TemporaryDirectory()
        let png = try DatasetFixture.png(40, 20)
        let file = work.url.appendingPathComponent("local.png")
        try Data(png).write(to: file)
        let dataURL = "data:image/png;base64," + Data(png).base64EncodedString()
        // Quoted: a data: URL has a comma.
        let list = try DatasetFixture.write("url\n\"\(dataURL)\"\n\(file.absoluteString)\n", "rows.csv", in: work)

        let allowed = work.url.appendingPathComponent("allowed")
        let run = try await WebImageTool.run(["fetch", "--file", list, "--input-format", "csv", "--out", allowed.path,
                                              "--allow-file-urls", "--number-sample-per-shard", "10"])
        #expect(run.status == 0, "\(run.err)")
        // img2dataset's files layout: 00000/<key>.jpg for each successful row, keys by row.
        for index in 0..<2 {
            let key = DatasetFixture.key(shard: 0, index: index, perShard: 10)
            #expect(FileManager.default.fileExists(atPath: allowed.appendingPathComponent("00000/\(key).jpg").path), "row \(index)")
        }

        let refused = work.url.appendingPathComponent("refused")
        let plain = try await WebImageTool.run(["fetch", "--file", list, "--input-format", "csv", "--out", refused.path,
                                                "--number-sample-per-shard", "10"])
        #expect(plain.status == 0, "one of two rows succeeded: \(plain.err)")
        let dataKey = DatasetFixture.key(shard: 0, index: 0, perShard: 10)
        let fileKey = DatasetFixture.key(shard: 0, index: 1, perShard: 10)
        #expect(FileManager.default.fileExists(atPath: refused.appendingPathComponent("00000/\(dataKey).jpg").path))
        #expect(!FileManager.default.fileExists(atPath: refused.appendingPathComponent("00000/\(fileKey).jpg").path))
        // A failed sample is a line of the shard's metadata with its error_message.
        let metadata = try String(contentsOf: refused.appendingPathComponent("00000.jsonl"), encoding: .utf8)
        let line = try #require(metadata.split(separator: "\n").first { $0.contains("\"key\": \"\(fileKey)\"") })
        #expect(line.contains("failed_to_download") && line.contains("--allow-file-urls"), "\(line)")
    }

    @Test("a job in which not one sample succeeded exits 1 and says why; a usage error leaves no --out folder")
    func failedJobAndUsageErrors() async throws {
        let work = try TemporaryDirectory()
        let list = try DatasetFixture.write("url\nnot a url\nftp://example.invalid/x.jpg\n", "dead.csv", in: work)
        let out = work.url.appendingPathComponent("dead")
        let run = try await WebImageTool.run(["fetch", "--file", list, "--input-format", "csv", "--out", out.path])
        #expect(run.status == 1, "\(run.out) \(run.err)")
        #expect(run.err.contains("not one of the 2 samples succeeded") && run.err.contains("unknown url type"), "\(run.err)")

        for (name, extra) in [("missing-list", ["--file", work.url.appendingPathComponent("nope.csv").path]),
                              ("bad-column", ["--file", list, "--url-col", "URL"])] {
            let target = work.url.appendingPathComponent(name)
            let bad = try await WebImageTool.run(["fetch", "--input-format", "csv", "--out", target.path] + extra)
            #expect(bad.status == 2 || bad.status == 1, "\(name): \(bad.err)")
            #expect(!FileManager.default.fileExists(atPath: target.path), "\(name) left \(target.path) behind")
        }
    }
}
