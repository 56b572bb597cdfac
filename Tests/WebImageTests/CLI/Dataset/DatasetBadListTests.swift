import Foundation
import Testing

/// Issue #50 item 6: a parquet list read as text printed its bytes to stderr as URLs, wrote
/// a shard of garbage rows and exited 0; img2dataset fails at once. Now the list is refused
/// before anything is written, naming the option that reads it, in the command's spelling.
@Suite("webimage img2dataset and fetch --file: a list in the wrong format", .serialized, .timeLimit(.minutes(2)))
struct DatasetBadListTests {
    @Test("a parquet list without input_format parquet: exit 2, the option named, no binary bytes, no output folder")
    func parquetReadAsText() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: DatasetInterpolationTests.python.path), "run `make test-venv`")
        let work = try TemporaryDirectory()
        let list = work.url.appendingPathComponent("urls.parquet")
        _ = try await DatasetInterpolationTests.runPython(["-c", """
            import pyarrow as pa, pyarrow.parquet as pq, sys
            pq.write_table(pa.table({"url": ["http://127.0.0.2/a.jpg", "http://127.0.0.2/b.jpg"]}), sys.argv[1])
            """, list.path])
        let head = try Data(contentsOf: list).prefix(4)
        #expect(head == Data("PAR1".utf8), "pyarrow wrote a parquet file")

        let commands: [([String], String)] = [
            (["img2dataset", "--url_list=\(list.path)", "--output_folder=\(work.url.appendingPathComponent("a").path)"],
             "--input_format=parquet"),
            (["fetch", "--file", list.path, "--input-format", "csv", "--out", work.url.appendingPathComponent("b").path],
             "--input-format parquet"),
        ]
        for (arguments, fix) in commands {
            let run = try await WebImageTool.run(arguments)
            #expect(run.status == 2, "\(arguments[0]): \(run.err)")
            #expect(run.err.contains("parquet file") && run.err.contains(fix), "\(arguments[0]): \(run.err)")
            // Printable text only: no byte of the file reached the terminal.
            #expect(run.err.unicodeScalars.allSatisfy { $0 == "\n" || ($0.value >= 0x20 && $0.value != 0x7F) }, "\(run.err)")
        }
        #expect(!FileManager.default.fileExists(atPath: work.url.appendingPathComponent("a").path))
        #expect(!FileManager.default.fileExists(atPath: work.url.appendingPathComponent("b").path))
    }

    @Test("img2dataset's usage errors share one format and point to its own --help")
    func oneErrorFormat() async throws {
        let work = try TemporaryDirectory()
        let list = try DatasetFixture.write("url,caption\nhttp://127.0.0.2/a.jpg,x\n", "rows.csv", in: work)
        let runs = [
            try await WebImageTool.run(["img2dataset", "--url_list=\(list)", "--input_format=csv", "--url_col=URL",
                                        "--output_folder=\(work.url.appendingPathComponent("o").path)"]),
            try await WebImageTool.run(["img2dataset", "--url_list=\(list)", "--no_such_option=1"]),
            try await WebImageTool.run(["img2dataset", "--url_list=\(work.url.appendingPathComponent("missing.txt").path)",
                                        "--output_folder=\(work.url.appendingPathComponent("p").path)"]),
        ]
        for run in runs {
            #expect(run.status == 2, "\(run.err)")
            let lines = run.err.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("webimage img2dataset: error: "), "\(run.err)")
            #expect(run.err.contains("webimage img2dataset --help") && !run.err.contains("'webimage --help'"), "\(run.err)")
        }
    }
}
