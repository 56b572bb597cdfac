import Foundation
import Testing
import WebImageTestOrigin

/// `--input-format parquet` and each shard's `NNNNN.parquet` metadata, against pyarrow,
/// pandas and DuckDB in the test venv (`make test-venv`).
@Suite("webimage fetch: parquet lists in, parquet metadata out", .serialized, .timeLimit(.minutes(3)))
struct DatasetParquetIOTests {
    static let venv = Corpus.packageRoot.appendingPathComponent(".build-test/venv/bin")

    static func python(_ script: String, _ arguments: [String], in work: TemporaryDirectory) async throws -> String {
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = venv.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        let file = try DatasetFixture.write(script, "script-\(UUID().uuidString).py", in: work)
        let (status, text) = try await SlurmCluster.runCapturing(
            "/bin/bash", ["-c", "cd \"$0\" && python3 \"$1\" \"${@:2}\" 2>/dev/null", work.path, file] + arguments, environment: env)
        try #require(status == 0, "python failed: \(text)")
        return text
    }

    @Test("A LAION-style parquet list (snappy, dictionary, nulls, a folder of two files) → shards with img2dataset's parquet metadata")
    func laionStyleList() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.venv.appendingPathComponent("python3").path),
                     "no \(Self.venv.path)/python3: run `make test-venv`")
        try await TestOrigin.with { origin in
            let body = try DatasetFixture.png(64, 48)
            let urls = (0..<6).map { i -> String in
                if i != 4 { origin.route("/\(i).png", .init(body: body, contentType: "image/png")) }
                return origin.url("/\(i).png").absoluteString
            }
            let work = try TemporaryDirectory()
            let lists = work.url.appendingPathComponent("lists")
            try FileManager.default.createDirectory(at: lists, withIntermediateDirectories: true)
            _ = try await Self.python(#"""
                import sys, pyarrow as pa, pyarrow.parquet as pq
                urls = sys.argv[2:]
                def table(rows):
                    return pa.table({"URL": [urls[i] for i in rows],
                                     "TEXT": [None if i == 1 else f"caption {i} ünïcödé" for i in rows],
                                     "similarity": pa.array([0.25 * i for i in rows], pa.float32()),
                                     "WIDTH": pa.array([None if i == 2 else 100 + i for i in rows], pa.int64()),
                                     "unused": [b"x" * i for i in rows]})
                pq.write_table(table([0, 1, 2, 3]), sys.argv[1] + "/a.parquet", compression="snappy", row_group_size=3)
                pq.write_table(table([4, 5]), sys.argv[1] + "/b.parquet", compression="zstd", data_page_version="2.0")
                """#, [lists.path] + urls, in: work)
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run(["fetch", "--file", lists.path, "--input-format", "parquet", "--url-col", "URL",
                                                  "--caption-col", "TEXT", "--save-additional-columns", "similarity,WIDTH",
                                                  "--out", out.path])
            #expect(run.status == 0, "\(run.err)")
            // One shard per input file, as for the other formats.
            let read = try await Self.python(#"""
                import json, sys, duckdb, pandas as pd, pyarrow.parquet as pq
                out = {}
                for shard in ("00000", "00001"):
                    path = f"{sys.argv[1]}/{shard}.parquet"
                    t = pq.read_table(path)
                    df = pd.read_parquet(path)
                    con = duckdb.connect()
                    types = [r[1] for r in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{path}')").fetchall()]
                    rows = con.execute(f"SELECT * FROM read_parquet('{path}')").fetchall()
                    jsonl = [json.loads(line) for line in open(f"{sys.argv[1]}/{shard}.jsonl")]
                    records = df.astype(object).where(df.notna(), None).to_dict("records")
                    out[shard] = {"names": t.column_names, "types": [str(f.type) for f in t.schema], "duckdb": types,
                                  "same_as_jsonl": all(all(r.get(k) == j.get(k) for k in j) for r, j in zip(records, jsonl)),
                                  "rows": len(rows), "jsonl": len(jsonl), "records": records}
                print(json.dumps(out, default=str))
                """#, [out.path], in: work)
            let shards = try #require(try JSONSerialization.jsonObject(with: Data(read.utf8)) as? [String: [String: Any]])
            // img2dataset 1.47's own order and types (its downloader's meta dict; pyarrow's schema of
            // its parquet, which Img2DatasetReferenceTests reads beside ours): the input columns
            // (additional ones, caption, url), key, status, error_message, the sizes as int32, then
            // the hash. No exif: fetch --file extracts EXIF only with --extract-exif.
            let names = ["similarity", "WIDTH", "caption", "url", "key", "status", "error_message", "width", "height",
                         "original_width", "original_height", "sha256"]
            for (shard, count) in [("00000", 4), ("00001", 2)] {
                let s = try #require(shards[shard])
                #expect(s["names"] as? [String] == names, "\(shard)")
                #expect(s["types"] as? [String] == ["double", "int64", "string", "string", "string", "string", "string",
                                                    "int32", "int32", "int32", "int32", "string"], "\(shard)")
                #expect(s["duckdb"] as? [String] == ["DOUBLE", "BIGINT", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR",
                                                     "INTEGER", "INTEGER", "INTEGER", "INTEGER", "VARCHAR"], "\(shard)")
                #expect(s["rows"] as? Int == count && s["jsonl"] as? Int == count, "\(shard)")
                #expect(s["same_as_jsonl"] as? Bool == true, "\(shard): \(s["records"] ?? "")")
            }
            let first = try #require((shards["00000"]?["records"] as? [[String: Any]]))
            #expect(first.map { $0["url"] as? String } == Array(urls[0..<4]))
            #expect(first[0]["caption"] as? String == "caption 0 ünïcödé" && first[1]["caption"] is NSNull)
            #expect(first[2]["WIDTH"] is NSNull && first[3]["WIDTH"] as? Int == 103)
            #expect(first[0]["status"] as? String == "success" && first[0]["original_width"] as? Int == 64)
            let second = try #require((shards["00001"]?["records"] as? [[String: Any]]))
            #expect(second[0]["status"] as? String == "failed_to_download" && second[0]["width"] is NSNull)
        }
    }

    @Test("A corrupt parquet list is an error naming the file; a missing column lists the file's columns")
    func corruptList() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.venv.appendingPathComponent("python3").path),
                     "no \(Self.venv.path)/python3: run `make test-venv`")
        let work = try TemporaryDirectory()
        let bad = try DatasetFixture.write("PAR1 this is not parquet PAR1", "bad.parquet", in: work)
        let run = try await WebImageTool.run(["fetch", "--file", bad, "--input-format", "parquet",
                                              "--out", work.url.appendingPathComponent("out").path])
        #expect(run.status != 0)
        #expect(run.err.contains("bad.parquet"), "\(run.err)")
        _ = try await Self.python(#"""
            import sys, pyarrow as pa, pyarrow.parquet as pq
            pq.write_table(pa.table({"link": ["http://x/1"]}), sys.argv[1])
            """#, [work.url.appendingPathComponent("cols.parquet").path], in: work)
        let missing = try await WebImageTool.run(["fetch", "--file", work.url.appendingPathComponent("cols.parquet").path,
                                                  "--input-format", "parquet", "--out", work.url.appendingPathComponent("out2").path])
        #expect(missing.status != 0)
        #expect(missing.err.contains("no column 'url'") && missing.err.contains("link"), "\(missing.err)")
    }

    @Test("A row group corrupt mid-file: the error names the file and the row group; the shards before it stay whole")
    func corruptRowGroup() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.venv.appendingPathComponent("python3").path),
                     "no \(Self.venv.path)/python3: run `make test-venv`")
        try await TestOrigin.with { origin in
            let body = try DatasetFixture.png(16, 16)
            let urls = (0..<6).map { i -> String in
                origin.route("/\(i).png", .init(body: body, contentType: "image/png"))
                return origin.url("/\(i).png").absoluteString
            }
            let work = try TemporaryDirectory()
            let list = work.url.appendingPathComponent("list.parquet").path
            // Row groups of 2 rows; the third group's url page header is overwritten with garbage.
            _ = try await Self.python(#"""
                import sys, pyarrow as pa, pyarrow.parquet as pq
                path, urls = sys.argv[1], sys.argv[2:]
                pq.write_table(pa.table({"url": urls}), path, row_group_size=2, compression="none")
                offset = pq.ParquetFile(path).metadata.row_group(2).column(0).dictionary_page_offset
                with open(path, "r+b") as f:
                    f.seek(offset)
                    f.write(b"\xff" * 8)
                """#, [list] + urls, in: work)
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run(["fetch", "--file", list, "--input-format", "parquet",
                                                  "--number-sample-per-shard", "2", "--out", out.path])
            #expect(run.status != 0)
            #expect(run.err.contains("list.parquet") && run.err.contains("row group 2"), "\(run.err)")
            let names = Set(TemporaryDirectory.names(in: out))
            // Rows 0-3 were read before the bad group: shards 0 and 1 (files output) are complete.
            #expect(names.isSuperset(of: ["00000", "00000.parquet", "00000_stats.json", "00001", "00001.parquet", "00001_stats.json"]),
                    "\(names.sorted())")
            #expect(!names.contains("00002_stats.json"), "\(names.sorted())")
            #expect(!names.contains { $0.hasPrefix(".") }, "no partial file is left: \(names.sorted())")
        }
    }
}
