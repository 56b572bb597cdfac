import Foundation
import Testing
import WebImageTestOrigin

/// `fetch --file` with img2dataset's input and output formats: every input format (and
/// gzipped), files and webdataset outputs, keys, per-sample JSON, captions, metadata lines
/// and stats, checked against img2dataset 1.47's documented layout (its README, "Output
/// format choice" and "output_format"; the expected names are computed here from its
/// key formula, not read back from our code).
@Suite("webimage fetch: img2dataset inputs and outputs", .serialized, .timeLimit(.minutes(3)))
struct DatasetFormatsTests {
    /// One origin: a JPEG, a PNG, a 404 and a body that is not an image.
    struct Origin {
        let origin: TestOrigin
        let jpeg: Data
        let png: [UInt8]

        /// Runs `body` with the started origin; awaits its shutdown on every exit.
        static func with(_ body: (Origin) async throws -> Void) async throws {
            try await TestOrigin.with { origin in
                let jpeg = try Corpus.data(DatasetFixture.jpegPath)
                let png = try DatasetFixture.png(300, 200)
                origin.route("/a.jpg", .init(body: Array(jpeg), contentType: "image/jpeg"))
                origin.route("/b.png", .init(body: png, contentType: "image/png"))
                origin.route("/missing.jpg", .status(404))
                origin.route("/page.html", .init(body: Array("<html></html>".utf8), contentType: "text/html"))
                try await body(Origin(origin: origin, jpeg: jpeg, png: png))
            }
        }

        func url(_ path: String) -> String { origin.url(path).absoluteString }

        /// (url, caption, source) rows: two images, a 404, then a page and an image in shard 1.
        var rows: [(url: String, caption: String, source: String)] {
            [(url("/a.jpg"), "a tower, \"quoted\", with comma", "s1"),
             (url("/b.png"), "caf\u{E9} \u{2615}\nsecond line", "s2"),
             (url("/missing.jpg"), "not there", "s3"),
             (url("/page.html"), "not an image", "s4"),
             (url("/a.jpg"), "", "s5")]
        }
    }

    static func csvField(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// The same rows as csv, tsv, json and jsonl.
    static func inputs(_ o: Origin) -> [(format: String, text: String)] {
        let rows = o.rows
        func jsonString(_ s: String) -> String {
            let data = try? JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes])
            return String(decoding: (data ?? Data()).dropFirst().dropLast(), as: UTF8.self)
        }
        let csv = "url,caption,source\r\n" + rows.map { [$0.url, csvField($0.caption), $0.source].joined(separator: ",") }
            .joined(separator: "\r\n") + "\r\n"
        let tsv = "url\tcaption\tsource\n" + rows.map { [$0.url, csvField($0.caption), $0.source].joined(separator: "\t") }
            .joined(separator: "\n") + "\n"
        let objects = rows.map { "{\"source\": \(jsonString($0.source)), \"url\": \(jsonString($0.url)), \"caption\": \(jsonString($0.caption)), \"other\": [1, {\"b\": 2}]}" }
        return [("csv", csv), ("tsv", tsv), ("json", "[\n" + objects.joined(separator: ",\n") + "\n]\n"),
                ("jsonl", objects.joined(separator: "\n") + "\n\n")]
    }

    @Test("webdataset from csv: NNNNN.tar with KEY.jpg/json/txt in key order, metadata lines, stats; failures have no members")
    func webdatasetFromCSV() async throws {
        try await Origin.with { o in
            let work = try TemporaryDirectory()
            let list = try DatasetFixture.write(Self.inputs(o)[0].text, "urls.csv", in: work)
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run([
                "fetch", "--file", list, "--input-format", "csv", "--url-col", "url", "--caption-col", "caption",
                "--save-additional-columns", "source", "--output-format", "webdataset", "--number-sample-per-shard", "3",
                "--out", out.path])
            #expect(run.status == 0, "\(run.err)")
            #expect(run.out.contains("3 of 5 samples"), "\(run.out)")

            // img2dataset's files: per shard a tar, its parquet metadata (ours also as JSON lines) and stats; nothing else.
            #expect(Set(TemporaryDirectory.names(in: out)) == ["00000.tar", "00000.jsonl", "00000.parquet", "00000_stats.json",
                                                               "00001.tar", "00001.jsonl", "00001.parquet", "00001_stats.json"])
            let k = { (shard: Int, index: Int) in DatasetFixture.key(shard: shard, index: index, perShard: 3) }
            // N = 3: ceil(log10 3) = 1 digit for the index, 5 for the shard.
            #expect(k(1, 1) == "000011")
            let shard0 = try DatasetFixture.tarMembers(out.appendingPathComponent("00000.tar"))
            #expect(shard0.map(\.name) == ["\(k(0, 0)).jpg", "\(k(0, 0)).json", "\(k(0, 0)).txt",
                                           "\(k(0, 1)).jpg", "\(k(0, 1)).json", "\(k(0, 1)).txt"])
            let shard1 = try DatasetFixture.tarMembers(out.appendingPathComponent("00001.tar"))
            #expect(shard1.map(\.name) == ["\(k(1, 1)).jpg", "\(k(1, 1)).json", "\(k(1, 1)).txt"])

            // Captions as given (UTF-8, no newline added); JSON in Python's indent=4 ASCII form.
            #expect(shard0[2].data == Data(o.rows[0].caption.utf8))
            #expect(shard0[5].data == Data(o.rows[1].caption.utf8))
            #expect(shard1[2].data == Data())
            let jsonText = String(decoding: shard0[4].data, as: UTF8.self)
            #expect(jsonText.hasPrefix("{\n    \"source\": \"s2\",\n    \"caption\": \"caf\\u00e9 \\u2615\\nsecond line\",\n"))
            #expect(jsonText.hasSuffix("\n}"))
            #expect(DatasetFixture.keyOrder(jsonText) == ["source", "caption", "url", "key", "status", "error_message", "width",
                                                          "height", "original_width", "original_height", "sha256"])
            let json = try DatasetFixture.object(shard0[4].data)
            #expect(json["key"] as? String == k(0, 1))
            #expect(json["url"] as? String == o.rows[1].url)
            #expect(json["status"] as? String == "success")
            #expect(json["error_message"] is NSNull)
            // border 256 (the default) of a 300×200 image: 256×256 out.
            #expect(json["width"] as? Int == 256 && json["height"] as? Int == 256)
            #expect(json["original_width"] as? Int == 300 && json["original_height"] as? Int == 200)
            #expect(json["sha256"] as? String == DatasetFixture.sha256(o.png))
            let first = try DatasetFixture.object(shard0[1].data)
            #expect(first["sha256"] as? String == DatasetFixture.sha256(o.jpeg))
            #expect(first["original_width"] as? Int == 512 && first["original_height"] as? Int == 512)

            // Stats: img2dataset's fields in its order.
            let statsData = try Data(contentsOf: out.appendingPathComponent("00000_stats.json"))
            let statsText = String(decoding: statsData, as: UTF8.self)
            #expect(DatasetFixture.keyOrder(statsText) == ["count", "successes", "failed_to_download", "failed_to_resize",
                                                           "duration", "start_time", "end_time", "status_dict"])
            let stats = try DatasetFixture.object(statsData)
            #expect(stats["count"] as? Int == 3 && stats["successes"] as? Int == 2)
            #expect(stats["failed_to_download"] as? Int == 1 && stats["failed_to_resize"] as? Int == 0)
            #expect(stats["status_dict"] as? [String: Int] == ["success": 2, "HTTP Error 404: Not Found": 1])
            let start = try #require(stats["start_time"] as? Double), end = try #require(stats["end_time"] as? Double)
            #expect(end >= start && abs((stats["duration"] as? Double ?? -1) - (end - start)) < 1e-6)
            let stats1 = try DatasetFixture.object(Data(contentsOf: out.appendingPathComponent("00001_stats.json")))
            #expect(stats1["status_dict"] as? [String: Int] == ["Image decoding error": 1, "success": 1])
            #expect(stats1["failed_to_resize"] as? Int == 1)

            // Metadata: one line per row, failures included, in key order, the same record as KEY.json.
            let lines = try String(contentsOf: out.appendingPathComponent("00000.jsonl"), encoding: .utf8)
                .split(separator: "\n").map { try DatasetFixture.object(Data($0.utf8)) }
            #expect(lines.map { $0["key"] as? String } == [k(0, 0), k(0, 1), k(0, 2)])
            #expect(lines[2]["status"] as? String == "failed_to_download")
            #expect(lines[2]["error_message"] as? String == "HTTP Error 404: Not Found")
            #expect(lines[2]["width"] is NSNull && lines[2]["sha256"] is NSNull)
            #expect(lines[2]["source"] as? String == "s3" && lines[2]["caption"] as? String == "not there")
            #expect(NSDictionary(dictionary: lines[1]).isEqual(to: json))
        }
    }

    @Test("tsv, json, jsonl and their .gz read the same rows as csv; files output: NNNNN/KEY.jpg, KEY.txt, KEY.json")
    func everyInputFormat() async throws {
        try await Origin.with { o in
            let work = try TemporaryDirectory()
            var results: [String: [String: Data]] = [:]
            for (format, text) in Self.inputs(o) {
                let plain = try DatasetFixture.write(text, "urls.\(format)", in: work)
                for (name, path) in [(format, plain), (format + ".gz", try DatasetFixture.gzip(plain))] {
                    let out = work.url.appendingPathComponent("out-\(name)")
                    let run = try await WebImageTool.run([
                        "fetch", "--file", path, "--input-format", name, "--caption-col", "caption",
                        "--save-additional-columns", "source", "--number-sample-per-shard", "3", "--out", out.path])
                    #expect(run.status == 0, "\(name): \(run.err)")
                    results[name] = DatasetFixture.tree(out)
                }
            }
            let k = { (shard: Int, index: Int) in DatasetFixture.key(shard: shard, index: index, perShard: 3) }
            let csv = try #require(results["csv"])
            let images = csv.keys.filter { $0.hasSuffix(".jpg") }.sorted()
            #expect(images == ["00000/\(k(0, 0)).jpg", "00000/\(k(0, 1)).jpg", "00001/\(k(1, 1)).jpg"])
            #expect(csv["00000/\(k(0, 1)).txt"] == Data(o.rows[1].caption.utf8))
            #expect(csv["00000_stats.json"] != nil && csv["00001.jsonl"] != nil)
            #expect(!csv.keys.contains { $0.hasPrefix(".") || $0.contains("/.") }, "no partial file is left")
            // Every format gives the same images, captions and sample records (times aside).
            func samples(_ tree: [String: Data]) -> [String: Data] {
                tree.filter { !$0.key.hasSuffix("_stats.json") && !$0.key.hasSuffix(".jsonl") && !$0.key.hasSuffix(".parquet") }
            }
            for (name, tree) in results where name != "csv" {
                let theirs = samples(tree), ours = samples(csv)
                #expect(theirs.keys.sorted() == ours.keys.sorted(), "\(name)")
                for (file, data) in ours where !file.hasSuffix(".json") { #expect(theirs[file] == data, "\(name): \(file)") }
                for (file, data) in ours where file.hasSuffix(".json") {
                    let a = try DatasetFixture.object(data), b = try DatasetFixture.object(try #require(theirs[file]))
                    #expect(NSDictionary(dictionary: a).isEqual(to: b), "\(name): \(file)")
                }
            }
        }
    }

    @Test("txt: one URL per line, blank lines take no key, CRLF and a BOM are fine; jsonl null URL and nested columns")
    func textAndJSONDetails() async throws {
        try await Origin.with { o in
            let work = try TemporaryDirectory()
            let text = "\u{FEFF}" + o.url("/a.jpg") + "\r\n\n" + o.url("/missing.jpg") + "\n\nnotaurl\n" + o.url("/b.png")
            let list = try DatasetFixture.write(text, "urls.txt", in: work)
            let out = work.url.appendingPathComponent("txt")
            let run = try await WebImageTool.run(["fetch", "--file", list, "--input-format", "txt", "--out", out.path,
                                                  "--number-sample-per-shard", "10", "--resize-mode", "no"])
            #expect(run.status == 0, "\(run.err)")
            let lines = try String(contentsOf: out.appendingPathComponent("00000.jsonl"), encoding: .utf8)
                .split(separator: "\n").map { try DatasetFixture.object(Data($0.utf8)) }
            #expect(lines.map { $0["key"] as? String } == (0..<4).map { DatasetFixture.key(shard: 0, index: $0, perShard: 10) })
            #expect(lines.map { $0["status"] as? String } == ["success", "failed_to_download", "failed_to_download", "success"])
            #expect(lines[2]["error_message"] as? String == "unknown url type: 'notaurl'")
            #expect(lines[0]["url"] as? String == o.url("/a.jpg"))
            #expect(lines[0]["caption"] == nil, "no caption column: no caption field")
            #expect(lines[3]["width"] as? Int == 300, "resize mode no keeps the size")

            let jsonl = "{\"url\": null, \"meta\": {\"z\": 1, \"a\": [true, 1.5, null]}}\n{\"url\": \"\(o.url("/b.png"))\", \"meta\": 7}\n"
            let jsonlPath = try DatasetFixture.write(jsonl, "rows.jsonl", in: work)
            let out2 = work.url.appendingPathComponent("jsonl")
            let run2 = try await WebImageTool.run(["fetch", "--file", jsonlPath, "--input-format", "jsonl", "--out", out2.path,
                                                   "--save-additional-columns", "meta"])
            #expect(run2.status == 0, "\(run2.err)")
            let rows = try String(contentsOf: out2.appendingPathComponent("00000.jsonl"), encoding: .utf8)
                .split(separator: "\n").map { try DatasetFixture.object(Data($0.utf8)) }
            #expect(rows[0]["error_message"] as? String == "unknown url type: 'None'")
            #expect(rows[0]["url"] is NSNull)
            let meta = try #require(rows[0]["meta"] as? [String: Any])
            #expect(meta["z"] as? Int == 1 && (meta["a"] as? [Any])?.count == 3)
            #expect(rows[1]["meta"] as? Int == 7)
            let sample = try String(contentsOf: out2.appendingPathComponent("00000/\(DatasetFixture.key(shard: 0, index: 1, perShard: 10_000)).json"),
                                    encoding: .utf8)
            #expect(sample.hasPrefix("{\n    \"meta\": 7,\n    \"url\": "))
        }
    }

    @Test("Bad input is a clear error before any download: missing file, missing column, reserved column, bad format")
    func badInput() async throws {
        let work = try TemporaryDirectory()
        let out = work.url.appendingPathComponent("out").path
        let csv = try DatasetFixture.write("link,text\nhttp://127.0.0.1:1/a.jpg,x\n", "list.csv", in: work)
        let cases: [([String], String)] = [
            (["--file", work.url.appendingPathComponent("none.csv").path, "--input-format", "csv"], "cannot read"),
            (["--file", csv, "--input-format", "csv"], "no column 'url'"),
            (["--file", csv, "--input-format", "csv", "--url-col", "link", "--caption-col", "caption"], "no column 'caption'"),
            (["--file", csv, "--input-format", "csv", "--save-additional-columns", "key"], "reserves"),
            (["--file", csv, "--input-format", "xml"], "Invalid input format"),
            (["--file", csv, "--input-format", "parquet"], "not a parquet file"),
            (["--file", csv, "--output-format", "xml"], "Invalid output format"),
            (["--file", csv, "--resize-mode", "fit"], "Invalid option for resize_mode"),
            (["--file", csv, "--encode-format", "png", "--encode-quality", "95"], "--encode-quality"),
        ]
        for (arguments, message) in cases {
            let run = try await WebImageTool.run(["fetch"] + arguments + ["--out", out])
            #expect(run.status == 2, "\(arguments): \(run.status)")
            #expect(run.err.contains(message), "\(arguments): \(run.err)")
        }
        // Hostile lists end the job with a message naming the problem, and no shard.
        let hostile: [(String, String, String)] = [
            ("json", "[{\"url\": \"http://127.0.0.1:1/a.jpg\"}, {\"url\": ", "ends inside the JSON array"),
            ("json", "[" + String(repeating: "[", count: 5000), "nested too deeply"),
            ("json", "[\"unterminated", "ends inside the JSON array"),
            ("json", "[1, 2]", "is not an object"),
            ("jsonl", "{\"url\": \"x\"}\n[1]\n", "line 2 is not a JSON object"),
            ("csv", "url,caption\nhttp://127.0.0.1:1/a.jpg,a,b\n", "expected 2 columns, got 3"),
        ]
        for (n, (format, text, message)) in hostile.enumerated() {
            let path = try DatasetFixture.write(text, "hostile\(n).\(format)", in: work)
            let run = try await WebImageTool.run(["fetch", "--file", path, "--input-format", format, "--out", out])
            #expect(run.status == 1 && run.err.contains(message), "\(n): \(run.status) \(run.err)")
        }
        // An object is read as pandas' column orientation; columns must be objects (read whole, so a usage error).
        let scalar = try DatasetFixture.write("{\"url\": 1}", "scalar.json", in: work)
        let scalarRun = try await WebImageTool.run(["fetch", "--file", scalar, "--input-format", "json", "--out", out])
        #expect(scalarRun.status == 2 && scalarRun.err.contains("is not an object of index"), "\(scalarRun.err)")
        #expect(!TemporaryDirectory.names(in: URL(fileURLWithPath: out)).contains { $0.hasPrefix(".") || $0.hasSuffix("_stats.json") },
                "a list cut short leaves no shard and no partial file")
    }
}
