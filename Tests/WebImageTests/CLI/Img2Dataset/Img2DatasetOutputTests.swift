import Crypto
import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin

/// `webimage img2dataset` end to end on loopback: img2dataset's default invocation, its
/// metadata columns (hash, EXIF), verify_hash, and the tfrecord and dummy output formats.
/// Expected values come from img2dataset 1.47's documented semantics and from the served
/// bytes (hashes computed here), TFRecords are read by the test's own reader.
@Suite("webimage img2dataset: outputs and metadata", .serialized, .timeLimit(.minutes(3)))
struct Img2DatasetOutputTests {
    struct Origin {
        let origin: TestOrigin
        let png: [UInt8]
        let exifJPEG: [UInt8]

        /// Runs `body` with the started origin; awaits its shutdown on every exit.
        static func with(_ body: (Origin) async throws -> Void) async throws {
            try await TestOrigin.with { origin in
                let png = try DatasetFixture.png(300, 200)
                let exifJPEG = try Img2DatasetFixture.jpegWithEXIF()
                origin.route("/a.png", .init(body: png, contentType: "image/png"))
                origin.route("/exif.jpg", .init(body: exifJPEG, contentType: "image/jpeg"))
                origin.route("/missing.jpg", .status(404))
                try await body(Origin(origin: origin, png: png, exifJPEG: exifJPEG))
            }
        }

        func url(_ path: String) -> String { origin.url(path).absoluteString }
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String { digest.map { String(format: "%02x", $0) }.joined() }

    @Test("the default invocation: files, border 256, jpg, exif and sha256 columns in img2dataset's order")
    func defaultInvocation() async throws {
        try await Origin.with { o in
            let work = try TemporaryDirectory()
            let list = try BulkFixture.list([o.url("/a.png"), o.url("/exif.jpg"), o.url("/missing.jpg")], in: work)
            let out = work.url.appendingPathComponent("images")
            let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata", "--url_list=\(list)", "--output_folder=\(out.path)",
                                                  "--thread_count=8", "--processes_count=2"])
            #expect(run.status == 0, "\(run.err)")
            #expect(run.err.contains("thread_count=8") && run.err.contains("processes_count=2"), "\(run.err)")
            #expect(Set(TemporaryDirectory.names(in: out)) == ["00000", "00000.jsonl", "00000.parquet", "00000_stats.json"])
            let k = { (i: Int) in DatasetFixture.key(shard: 0, index: i, perShard: 10_000) }
            let folder = out.appendingPathComponent("00000")
            #expect(Set(TemporaryDirectory.names(in: folder)) == ["\(k(0)).jpg", "\(k(0)).json", "\(k(1)).jpg", "\(k(1)).json"])
            let jsonText = try String(contentsOf: folder.appendingPathComponent("\(k(0)).json"), encoding: .utf8)
            #expect(DatasetFixture.keyOrder(jsonText) == ["url", "key", "status", "error_message", "width", "height",
                                                          "original_width", "original_height", "exif", "sha256"])
            let first = try DatasetFixture.object(Data(jsonText.utf8))
            #expect(first["width"] as? Int == 256 && first["height"] as? Int == 256)
            #expect(first["sha256"] as? String == Self.hex(SHA256.hash(data: Data(o.png))))
            // A PNG without EXIF: exifread finds no tags, json.dumps({}).
            #expect(first["exif"] as? String == "{}")
            let image = try Data(contentsOf: folder.appendingPathComponent("\(k(0)).jpg"))
            #expect(image.starts(with: [0xFF, 0xD8, 0xFF]))
            let second = try DatasetFixture.object(Data(contentsOf: folder.appendingPathComponent("\(k(1)).json")))
            let exifText = try #require(second["exif"] as? String)
            let exif = try #require(JSONSerialization.jsonObject(with: Data(exifText.utf8)) as? [String: String])
            #expect(exif == Img2DatasetFixture.expectedEXIF)
            // exifread's spacing: json.dumps's ", " and ": ".
            #expect(exifText.hasPrefix("{\"Image Make\": \"TestCam\", "))
            let lines = try String(contentsOf: out.appendingPathComponent("00000.jsonl"), encoding: .utf8)
                .split(separator: "\n").map { try DatasetFixture.object(Data($0.utf8)) }
            #expect(lines.count == 3)
            #expect(lines[2]["status"] as? String == "failed_to_download")
            #expect(lines[2]["exif"] is NSNull && lines[2]["sha256"] is NSNull)
        }
    }

    @Test("exifread itself (img2dataset's reader, in the test venv) reads the same values for every tag we write")
    func exifMatchesExifread() async throws {
        let work = try TemporaryDirectory()
        let jpeg = try Img2DatasetFixture.jpegWithEXIF()
        let path = work.url.appendingPathComponent("exif.jpg")
        try Data(jpeg).write(to: path)
        let script = """
            import json, sys, exifread
            with open(sys.argv[1], "rb") as f:
                tags = exifread.process_file(f, details=False)
            print(json.dumps({k: str(v).strip() for k, v in tags.items() if v is not None}))
            """
        guard let output = try await Img2DatasetFixture.runPython(script, [path.path], in: work) else {
            Issue.record("no exifread in \(Img2DatasetFixture.python.path): run `make test-venv`")
            return
        }
        let theirs = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String])
        for (key, value) in Img2DatasetFixture.expectedEXIF { #expect(theirs[key] == value, "\(key): \(theirs[key] ?? "none")") }
        // Ours leaves out the IFD pointer exifread lists (the bulk article says so).
        #expect(Set(theirs.keys).subtracting(Img2DatasetFixture.expectedEXIF.keys) == ["Image ExifOffset"])
    }

    @Test("compute_hash md5, sha512 and None; extract_exif off; the column is named after the hash")
    func hashes() async throws {
        try await Origin.with { o in
            let work = try TemporaryDirectory()
            let list = try BulkFixture.list([o.url("/a.png")], in: work)
            let expected: [(String, String?)] = [("md5", Self.hex(Insecure.MD5.hash(data: Data(o.png)))),
                                                 ("sha512", Self.hex(SHA512.hash(data: Data(o.png)))), ("None", nil)]
            for (name, digest) in expected {
                let out = work.url.appendingPathComponent("out-\(name)")
                let run = try await WebImageTool.run(["img2dataset", list, "--output_folder", out.path, "--compute_hash", name,
                                                      "--noextract_exif", "--jsonl_metadata"])
                #expect(run.status == 0, "\(run.err)")
                let key = DatasetFixture.key(shard: 0, index: 0, perShard: 10_000)
                let text = try String(contentsOf: out.appendingPathComponent("00000/\(key).json"), encoding: .utf8)
                let keys = DatasetFixture.keyOrder(text)
                #expect(keys.last == (digest == nil ? "original_height" : name), "\(keys)")
                #expect(!keys.contains("exif"))
                if let digest { #expect(try DatasetFixture.object(Data(text.utf8))[name] as? String == digest) }
            }
        }
    }

    @Test("verify_hash: a row whose bytes do not match fails to download with 'hash mismatch'; the column is not copied")
    func verifyHash() async throws {
        try await Origin.with { o in
            let work = try TemporaryDirectory()
            let good = Self.hex(SHA256.hash(data: Data(o.png)))
            let csv = "url,h\n\(o.url("/a.png")),\(good)\n\(o.url("/a.png")),\(String(repeating: "0", count: 64))\n"
            let list = try DatasetFixture.write(csv, "rows.csv", in: work)
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata", "--url_list=\(list)", "--input_format=csv",
                                                  "--verify_hash=[\"h\",\"sha256\"]", "--output_folder=\(out.path)"])
            #expect(run.status == 0, "\(run.err)")
            let text = try String(contentsOf: out.appendingPathComponent("00000.jsonl"), encoding: .utf8)
            let lines = try text.split(separator: "\n").map { try DatasetFixture.object(Data($0.utf8)) }
            #expect(lines[0]["status"] as? String == "success" && lines[0]["sha256"] as? String == good)
            #expect(lines[1]["status"] as? String == "failed_to_download")
            #expect(lines[1]["error_message"] as? String == "hash mismatch")
            #expect(lines.allSatisfy { $0["h"] == nil })
            let stats = try DatasetFixture.object(Data(contentsOf: out.appendingPathComponent("00000_stats.json")))
            #expect(stats["status_dict"] as? [String: Int] == ["success": 1, "hash mismatch": 1])
        }
    }

    @Test("tfrecord: framed records with both masked CRC-32Cs, tf.train.Example features named as img2dataset's")
    func tfrecord() async throws {
        try await Origin.with { o in
            let work = try TemporaryDirectory()
            let jsonl = [o.url("/a.png"), o.url("/missing.jpg"), o.url("/exif.jpg")].enumerated().map { i, url in
                "{\"url\": \"\(url)\", \"caption\": \"cap \(i)\", \"score\": \(i).5, \"n\": \(i)}"
            }.joined(separator: "\n")
            let list = try DatasetFixture.write(jsonl, "rows.jsonl", in: work)
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata", "--url_list=\(list)", "--input_format=jsonl",
                                                  "--caption_col=caption", "--save_additional_columns=[score,n]",
                                                  "--output_format=tfrecord", "--output_folder=\(out.path)"])
            #expect(run.status == 0, "\(run.err)")
            #expect(Set(TemporaryDirectory.names(in: out)) == ["00000.tfrecord", "00000.jsonl", "00000.parquet", "00000_stats.json"])
            let records = try Img2DatasetFixture.records(Data(contentsOf: out.appendingPathComponent("00000.tfrecord")))
            // Failed samples are only in the metadata, as in img2dataset.
            #expect(records.count == 2)
            let first = try Img2DatasetFixture.example(records[0])
            let k = { (i: Int) in DatasetFixture.key(shard: 0, index: i, perShard: 10_000) }
            #expect(Set(first.keys) == ["key", "jpg", "txt", "score", "n", "caption", "url", "status", "error_message", "width",
                                        "height", "original_width", "original_height", "exif", "sha256"])
            #expect(first["key"]?.text == k(0) && first["txt"]?.text == "cap 0" && first["caption"]?.text == "cap 0")
            #expect(first["url"]?.text == o.url("/a.png") && first["status"]?.text == "success")
            #expect(first["width"] == .ints([256]) && first["original_width"] == .ints([300]))
            #expect(first["score"] == .floats([0.5]) && first["n"] == .ints([0]))
            // None becomes empty bytes (img2dataset's _bytes_feature).
            #expect(first["error_message"] == .bytes([[]]))
            #expect(first["sha256"]?.text == Self.hex(SHA256.hash(data: Data(o.png))))
            if case .bytes(let images)? = first["jpg"] { #expect(images.first?.starts(with: [0xFF, 0xD8]) == true) }
            #expect(try Img2DatasetFixture.example(records[1])["key"]?.text == k(2))

            // PyPI's tfrecord package reads the same file (when the venv has it).
            let script = """
                import sys
                from tfrecord.reader import tfrecord_loader
                for r in tfrecord_loader(sys.argv[1], None):
                    print(bytes(r["key"]).decode(), int(r["width"][0]), bytes(r["status"]).decode(), len(bytes(r["jpg"])))
                """
            let read = try await Img2DatasetFixture.runPython(script, [out.appendingPathComponent("00000.tfrecord").path], in: work)
            #expect(read != nil, "PyPI's tfrecord (make test-venv) did not read the file")
            if let output = read {
                let lines = output.split(separator: "\n").map(String.init)
                #expect(lines.count == 2 && lines[0].hasPrefix("\(k(0)) 256 success ") && lines[1].hasPrefix("\(k(2)) 256 success "),
                        "\(output)")
            }
        }
    }

    @Test("dummy writes only each shard's stats, as img2dataset's dummy writer")
    func dummy() async throws {
        try await Origin.with { o in
            let work = try TemporaryDirectory()
            let list = try BulkFixture.list([o.url("/a.png"), o.url("/missing.jpg"), o.url("/a.png")], in: work)
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata", "--url_list=\(list)", "--output_format=dummy",
                                                  "--number_sample_per_shard=2", "--output_folder=\(out.path)"])
            #expect(run.status == 0, "\(run.err)")
            #expect(Set(TemporaryDirectory.names(in: out)) == ["00000_stats.json", "00001_stats.json"])
            let stats = try DatasetFixture.object(Data(contentsOf: out.appendingPathComponent("00000_stats.json")))
            #expect(stats["count"] as? Int == 2 && stats["successes"] as? Int == 1 && stats["failed_to_download"] as? Int == 1)
        }
    }
}

/// The `exif` column of the corpus' JPEGs that carry EXIF, beside exifread's (img2dataset's
/// reader, in the test venv) on the same bytes: every tag we write, exifread writes with the
/// same value.
@Suite("webimage img2dataset: EXIF beside exifread on the corpus", .serialized, .timeLimit(.minutes(3)))
struct Img2DatasetEXIFCorpusTests {
    @Test("corpus JPEGs with EXIF: our tags are exifread's, with its values")
    func corpusEXIF() async throws {
        let manifest = try String(contentsOf: Corpus.root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        let paths = manifest.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
            .filter { $0.hasPrefix("jpeg/") && $0.lowercased().contains("exif") }
        try #require(!paths.isEmpty)
        try await TestOrigin.with { origin in
            let work = try TemporaryDirectory()
            var urls: [String] = []
            for (i, path) in paths.enumerated() {
                let body = try Corpus.data(path)
                origin.route("/\(i).jpg", .init(body: Array(body), contentType: "image/jpeg"))
                urls.append(origin.url("/\(i).jpg").absoluteString)
                try body.write(to: work.url.appendingPathComponent("\(i).jpg"))
            }
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata", "--url_list=\(try BulkFixture.list(urls, in: work))",
                                                  "--output_folder=\(out.path)",
                                                  "--disable_all_reencoding", "--output_format=files"])
            #expect(run.status == 0, "\(run.err)")
            let script = """
                import json, sys, exifread
                out = []
                for path in sys.argv[1:]:
                    try:
                        with open(path, "rb") as f:
                            tags = exifread.process_file(f, details=False)
                        out.append({k: str(v).strip() for k, v in tags.items() if v is not None})
                    except Exception:
                        # img2dataset writes None then; ours reads the block (the article says so).
                        out.append(None)
                print(json.dumps(out))
                """
            let files = paths.indices.map { work.url.appendingPathComponent("\($0).jpg").path }
            guard let text = try await Img2DatasetFixture.runPython(script, files, in: work) else {
                Issue.record("no exifread in \(Img2DatasetFixture.python.path): run `make test-venv`")
                return
            }
            let theirs = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any])
            let lines = try String(contentsOf: out.appendingPathComponent("00000.jsonl"), encoding: .utf8)
                .split(separator: "\n").map { try DatasetFixture.object(Data($0.utf8)) }
            var compared = 0
            for (i, line) in lines.enumerated() {
                let exifText = try #require(line["exif"] as? String, "\(paths[i])")
                let ours = try #require(JSONSerialization.jsonObject(with: Data(exifText.utf8)) as? [String: String])
                guard let reference = theirs[i] as? [String: String] else { continue }
                for (key, value) in ours {
                    #expect(reference[key] == value, "\(paths[i]) \(key): ours \(value), exifread \(reference[key] ?? "none")")
                    compared += 1
                }
            }
            #expect(compared > 0)
        }
    }
}
