import Crypto
import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin

/// The rest of img2dataset's options through `webimage img2dataset`, each against its
/// documented meaning (img2dataset 1.47's README and source): incremental_mode,
/// oom_shard_count, disable_all_reencoding, the interpolations, bbox_col blurring, the
/// column-oriented JSON pandas writes by default, and ignore_ssl_certificate.
@Suite("webimage img2dataset: options", .serialized, .timeLimit(.minutes(3)))
struct Img2DatasetBehaviourTests {
    static func withOrigin(
        _ image: [UInt8], tls: Bool = false, count: Int = 1, _ body: (TestOrigin, [String]) async throws -> Void
    ) async throws {
        try await TestOrigin.with(tls: tls) { origin in
            let urls = (0..<count).map { i -> String in
                origin.route("/\(i).png", .init(body: image, contentType: "image/png"))
                return origin.url("/\(i).png").absoluteString
            }
            try await body(origin, urls)
        }
    }

    @Test("incremental_mode: incremental skips finished shards, overwrite empties the folder, extend numbers after the last")
    func incrementalModes() async throws {
        try await Self.withOrigin(try DatasetFixture.png(40, 30), count: 3) { origin, urls in
            let work = try TemporaryDirectory()
            let list = try BulkFixture.list(urls, in: work)
            let out = work.url.appendingPathComponent("out")
            let base = ["img2dataset", "--jsonl_metadata", "--url_list=\(list)", "--output_folder=\(out.path)", "--number_sample_per_shard=2",
                        "--output_format=webdataset"]
            let first = try await WebImageTool.run(base)
            #expect(first.status == 0, "\(first.err)")
            let shards: Set<String> = ["00000.tar", "00000.jsonl", "00000.parquet", "00000_stats.json",
                                       "00001.tar", "00001.jsonl", "00001.parquet", "00001_stats.json"]
            #expect(Set(TemporaryDirectory.names(in: out)) == shards)
            // incremental (the default): both shards are done, nothing is fetched again.
            let before = origin.requestCount("/0.png")
            let again = try await WebImageTool.run(base)
            #expect(again.status == 0 && again.out.contains("2 already there"), "\(again.out)")
            #expect(origin.requestCount("/0.png") == before)
            // extend: the list again as shards 2 and 3.
            let extended = try await WebImageTool.run(base + ["--incremental_mode=extend"])
            #expect(extended.status == 0, "\(extended.err)")
            #expect(Set(TemporaryDirectory.names(in: out)).isSuperset(of: ["00002.tar", "00003.tar", "00003_stats.json"]))
            let keys = try DatasetFixture.tarMembers(out.appendingPathComponent("00003.tar")).map(\.name)
            #expect(keys.first == "\(DatasetFixture.key(shard: 3, index: 0, perShard: 2)).jpg")
            // overwrite: the folder is emptied first (a stray file goes too).
            try Data("x".utf8).write(to: out.appendingPathComponent("stray.txt"))
            let overwritten = try await WebImageTool.run(base + ["--incremental_mode=overwrite"])
            #expect(overwritten.status == 0, "\(overwritten.err)")
            #expect(Set(TemporaryDirectory.names(in: out)) == shards)
            // A folder holding the list itself is not emptied.
            let inside = try BulkFixture.list(urls, in: work, name: "inside.txt")
            let refused = try await WebImageTool.run(["img2dataset", "--jsonl_metadata", "--url_list=\(inside)", "--output_folder=\(work.url.path)",
                                                      "--incremental_mode=overwrite"])
            #expect(refused.status == 2 && refused.err.contains("holds the list"), "\(refused.err)")
            #expect(FileManager.default.fileExists(atPath: inside))
        }
    }

    @Test("oom_shard_count sets the shard name's digits and the key's")
    func oomShardCount() async throws {
        try await Self.withOrigin(try DatasetFixture.png(40, 30)) { origin, urls in
            let work = try TemporaryDirectory()
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata", "--url_list=\(try BulkFixture.list(urls, in: work))",
                                                  "--output_folder=\(out.path)", "--oom_shard_count=3",
                                                  "--number_sample_per_shard=100"])
            #expect(run.status == 0, "\(run.err)")
            // img2dataset: shard "{:03d}", key "{:0(2+3)d}" of 10**2 · shard + index.
            #expect(Set(TemporaryDirectory.names(in: out)) == ["000", "000.jsonl", "000.parquet", "000_stats.json"])
            #expect(TemporaryDirectory.names(in: out.appendingPathComponent("000")).contains("00000.jpg"))
        }
    }

    @Test("disable_all_reencoding: the downloaded bytes as KEY.jpg, sizes null, hash of those bytes")
    func disableAllReencoding() async throws {
        let png = try DatasetFixture.png(40, 30)
        try await Self.withOrigin(png) { origin, urls in
            let work = try TemporaryDirectory()
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata", "--url_list=\(try BulkFixture.list(urls, in: work))",
                                                  "--output_folder=\(out.path)", "--disable_all_reencoding=True",
                                                  "--min_image_size=1000"])
            #expect(run.status == 0, "\(run.err)")
            let key = DatasetFixture.key(shard: 0, index: 0, perShard: 10_000)
            let folder = out.appendingPathComponent("00000")
            #expect(try Data(contentsOf: folder.appendingPathComponent("\(key).jpg")) == Data(png))
            let json = try DatasetFixture.object(Data(contentsOf: folder.appendingPathComponent("\(key).json")))
            #expect(json["status"] as? String == "success")
            #expect(json["width"] is NSNull && json["original_width"] is NSNull)
            #expect(json["sha256"] as? String == DatasetFixture.sha256(png))
        }
    }

    @Test("interpolations: every OpenCV name is accepted, said on stderr, and sizes follow the resize mode")
    func interpolations() async throws {
        try await Self.withOrigin(try DatasetFixture.png(300, 200)) { origin, urls in
            let work = try TemporaryDirectory()
            let list = try BulkFixture.list(urls, in: work)
            for (name, mode, size) in [("area", "keep_ratio", (96, 64)), ("lanczos", "center_crop", (64, 64)),
                                       ("bicubic", "keep_ratio_largest", (64, 43)), ("bilinear", "border", (64, 64)),
                                       ("nearest", "no", (300, 200))] {
                let out = work.url.appendingPathComponent("out-\(name)")
                let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata", "--url_list=\(list)", "--output_folder=\(out.path)",
                                                      "--image_size=64", "--resize_mode=\(mode)", "--downscale_interpolation=\(name)",
                                                      "--upscale_interpolation=\(name)"])
                #expect(run.status == 0, "\(run.err)")
                #expect(run.err.contains("interpolation"), "\(run.err)")
                let line = try DatasetFixture.object(Data(contentsOf: out.appendingPathComponent("00000.jsonl")))
                // img2dataset: keep_ratio 64 / 200 → 96 × 64; keep_ratio_largest 64 / 300 → round(42.67) = 43.
                #expect(line["width"] as? Int == size.0 && line["height"] as? Int == size.1, "\(name) \(mode): \(line)")
            }
        }
    }

    @Test("bbox_col: pixels inside a box are blurred, those far from it are not; the column is saved")
    func boundingBoxes() async throws {
        // Vertical stripes, 1 px black / 1 px white: a blur turns them grey.
        var pixels = PixelBuffer(width: 200, height: 100)
        pixels.withUnsafeMutableBytes { p in
            for y in 0..<100 {
                for x in 0..<200 {
                    let v: UInt8 = x % 2 == 0 ? 0 : 255
                    let i = (y * 200 + x) * 4
                    (p[i], p[i + 1], p[i + 2], p[i + 3]) = (v, v, v, 255)
                }
            }
        }
        let png = [UInt8](try ImageCodersManager.shared.encode(DecodedImage(pixels: pixels, format: .png), as: .png,
                                                              options: ImageEncodeOptions()))
        try await Self.withOrigin(png) { origin, urls in
            let work = try TemporaryDirectory()
            let jsonl = "{\"url\": \"\(urls[0])\", \"boxes\": [[0.0, 0.0, 0.4, 1.0]]}\n"
            let list = try DatasetFixture.write(jsonl, "rows.jsonl", in: work)
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata", "--url_list=\(list)", "--input_format=jsonl",
                                                  "--bbox_col=boxes", "--resize_mode=no", "--encode_format=png",
                                                  "--output_folder=\(out.path)"])
            #expect(run.status == 0, "\(run.err)")
            let key = DatasetFixture.key(shard: 0, index: 0, perShard: 10_000)
            let folder = out.appendingPathComponent("00000")
            let result = try ImageCodersManager.shared.decode(Data(contentsOf: folder.appendingPathComponent("\(key).png")),
                                                              options: ImageDecodeOptions()).pixels
            func contrast(_ x: Int) -> Int {
                let row = 50 * 200
                return abs(Int(result.bytes[(row + x) * 4]) - Int(result.bytes[(row + x + 1) * 4]))
            }
            // Box 0…80 px wide (0.4 · 200), grown by a tenth of its 100 px side: blurred well inside, sharp far right.
            #expect(contrast(30) < 60, "inside: \(contrast(30))")
            #expect(contrast(180) == 255, "outside: \(contrast(180))")
            let json = try DatasetFixture.object(Data(contentsOf: folder.appendingPathComponent("\(key).json")))
            #expect(json["boxes"] as? [[Double]] == [[0.0, 0.0, 0.4, 1.0]])
        }
    }

    @Test("json input as DataFrame.to_json() writes it (columns → index → value) reads the same rows as records")
    func columnOrientedJSON() async throws {
        try await Self.withOrigin(try DatasetFixture.png(40, 30), count: 12) { origin, urls in
            let work = try TemporaryDirectory()
            // Index labels 0…11: their text order (0, 1, 10, 11, 2, …) is not the row order.
            let urlColumn = urls.enumerated().map { "\"\($0)\":\"\($1.replacingOccurrences(of: "/", with: "\\/"))\"" }
            let captions = urls.indices.map { "\"\($0)\":\"caption \($0)\"" }
            let columns = "{\"url\":{\(urlColumn.joined(separator: ","))},\"caption\":{\(captions.joined(separator: ","))}}"
            let records = "[" + urls.enumerated().map { "{\"url\": \"\($1)\", \"caption\": \"caption \($0)\"}" }
                .joined(separator: ", ") + "]"
            var trees: [[String: Data]] = []
            for (name, text) in [("columns", columns), ("records", records)] {
                let list = try DatasetFixture.write(text, "\(name).json", in: work)
                let out = work.url.appendingPathComponent("out-\(name)")
                let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata", "--url_list=\(list)", "--input_format=json",
                                                      "--caption_col=caption", "--output_folder=\(out.path)"])
                #expect(run.status == 0, "\(name): \(run.err)")
                trees.append(try DatasetFixture.comparable(out))
            }
            #expect(trees[0] == trees[1])
            let key = DatasetFixture.key(shard: 0, index: 10, perShard: 10_000)
            #expect(trees[0]["00000/\(key).txt"] == Data("caption 10".utf8))
        }
    }

    @Test("ignore_ssl_certificate: a self-signed HTTPS origin fails without it and succeeds with it")
    func ignoreSSLCertificate() async throws {
        try await Self.withOrigin(try DatasetFixture.png(40, 30), tls: true) { origin, urls in
            let work = try TemporaryDirectory()
            let list = try BulkFixture.list(urls, in: work)
            for flag in ["--noignore_ssl_certificate", "--ignore_ssl_certificate"] {
                let out = work.url.appendingPathComponent("out\(flag)")
                let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata", "--url_list=\(list)", "--output_folder=\(out.path)", flag])
                #expect(run.status == 0, "\(run.err)")
                let line = try DatasetFixture.object(Data(contentsOf: out.appendingPathComponent("00000.jsonl")))
                #expect(line["status"] as? String == (flag == "--ignore_ssl_certificate" ? "success" : "failed_to_download"),
                        "\(flag): \(line)")
            }
        }
    }

    /// Issue #50 item 3. img2dataset's downloader opens rows with `urllib.request.urlopen`,
    /// which reads `file:` URLs; the refusal named a `fetch` flag this command did not take.
    @Test("file: rows load as img2dataset loads them; --allow_file_urls=False refuses them, naming that setting")
    func fileRows() async throws {
        let work = try TemporaryDirectory()
        let png = try DatasetFixture.png(40, 30)
        let image = work.url.appendingPathComponent("local.png")
        try Data(png).write(to: image)
        let list = try BulkFixture.list([image.absoluteString], in: work)
        for flag in ["--allow_file_urls", "--allow_file_urls=False"] {
            let out = work.url.appendingPathComponent("out\(flag)")
            let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata", "--url_list=\(list)",
                                                  "--output_folder=\(out.path)"] + (flag.hasSuffix("False") ? [flag] : []))
            #expect(run.status == 0, "\(run.err)")
            let line = try DatasetFixture.object(Data(contentsOf: out.appendingPathComponent("00000.jsonl")))
            if flag.hasSuffix("False") {
                #expect(line["status"] as? String == "failed_to_download", "\(line)")
                #expect((line["error_message"] as? String)?.contains("--allow_file_urls") == true, "\(line)")
            } else {
                #expect(line["status"] as? String == "success", "\(line)")
                #expect(line["original_width"] as? Int == 40 && line["original_height"] as? Int == 30, "\(line)")
            }
        }
    }

    @Test("fetch --file takes the same options with dashes: hash, verify, exif, oom digits, tfrecord, a bad value is exit 2")
    func fetchTakesThemToo() async throws {
        let png = try DatasetFixture.png(40, 30)
        try await Self.withOrigin(png, count: 2) { origin, urls in
            let work = try TemporaryDirectory()
            let md5 = Insecure.MD5.hash(data: Data(png)).map { String(format: "%02x", $0) }.joined()
            let csv = "url,h\n\(urls[0]),\(md5)\n\(urls[1]),0\n"
            let list = try DatasetFixture.write(csv, "rows.csv", in: work)
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run(["fetch", "--file", list, "--input-format", "csv", "--compute-hash", "md5",
                                                  "--verify-hash", "h,md5", "--extract-exif", "--oom-shard-count", "3",
                                                  "--output-format", "tfrecord", "--out", out.path])
            #expect(run.status == 0, "\(run.err)")
            #expect(Set(TemporaryDirectory.names(in: out)) == ["000.tfrecord", "000.jsonl", "000.parquet", "000_stats.json"])
            let lines = try String(contentsOf: out.appendingPathComponent("000.jsonl"), encoding: .utf8)
                .split(separator: "\n").map { try DatasetFixture.object(Data($0.utf8)) }
            #expect(lines[0]["md5"] as? String == md5 && lines[0]["exif"] as? String == "{}")
            #expect(lines[1]["error_message"] as? String == "hash mismatch")
            let bad = try await WebImageTool.run(["fetch", "--file", list, "--input-format", "csv", "--verify-hash", "h,md5",
                                                  "--out", out.path])
            #expect(bad.status == 2 && bad.err.contains("--verify-hash"), "\(bad.err)")
        }
    }
}
