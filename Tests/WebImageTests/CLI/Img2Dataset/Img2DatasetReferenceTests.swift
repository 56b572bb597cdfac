import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin

/// `webimage img2dataset` beside the real img2dataset 1.47 on the same loopback URLs and the
/// same arguments. img2dataset pins `webdataset<0.3`, which the shared test venv cannot hold
/// (it has webdataset 1.0), so it lives in a venv of its own, `.build-test/img2dataset-venv`
/// (`make test-img2dataset`); without it the test says so and passes.
@Suite("webimage img2dataset beside img2dataset 1.47", .serialized, .timeLimit(.minutes(5)))
struct Img2DatasetReferenceTests {
    static let img2dataset = Corpus.packageRoot.appendingPathComponent(".build-test/img2dataset-venv/bin/img2dataset")

    /// Runs img2dataset with `arguments`; its exit status.
    static func runReference(_ arguments: [String], in work: TemporaryDirectory) async throws -> Int32 {
        let process = Process()
        process.executableURL = img2dataset
        process.arguments = arguments
        process.currentDirectoryURL = work.url
        // Offline: albumentations would look for a newer release at import.
        process.environment = ProcessInfo.processInfo.environment.merging(["NO_ALBUMENTATIONS_UPDATE": "1"]) { $1 }
        let log = work.url.appendingPathComponent("img2dataset-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                c.resume()
            }
        }
        return process.terminationStatus
    }

    /// Runs `webimage img2dataset` and then img2dataset with `arguments`, each writing to a
    /// folder of its own (the tool's name plus `outputs`), and decodes each one's first sample (a PNG).
    static func firstSamples(
        _ arguments: [String], outputs: String, in work: TemporaryDirectory
    ) async throws -> (ours: PixelBuffer, reference: PixelBuffer) {
        var images: [PixelBuffer] = []
        for tool in ["webimage", "img2dataset"] {
            let out = work.url.appendingPathComponent(tool + outputs)
            let arguments = arguments + ["--output_folder=\(out.path)"]
            if tool == "webimage" {
                let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata"] + arguments)
                #expect(run.status == 0, "\(run.err)")
            } else {
                #expect(try await runReference(arguments, in: work) == 0)
            }
            let file = out.appendingPathComponent("00000/\(DatasetFixture.key(shard: 0, index: 0, perShard: 10_000)).png")
            images.append(try ImageCodersManager.shared.decode(Data(contentsOf: file), options: ImageDecodeOptions()).pixels)
        }
        return (images[0], images[1])
    }

    @Test("webdataset from csv: the same shards, members, captions, sizes, hashes, statuses and EXIF values")
    func sameShards() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.img2dataset.path) else {
            print("skipped: no \(Self.img2dataset.path) (make test-img2dataset)")
            return
        }
        try await TestOrigin.with { origin in
            let sizes = [(300, 200), (64, 96), (40, 30)]
            var csv = "url,caption,source\n"
            for (i, size) in sizes.enumerated() {
                origin.route("/\(i).png", .init(body: try DatasetFixture.png(size.0, size.1), contentType: "image/png"))
                csv += "\(origin.url("/\(i).png").absoluteString),caption \(i),s\(i)\n"
            }
            origin.route("/exif.jpg", .init(body: try Img2DatasetFixture.jpegWithEXIF(), contentType: "image/jpeg"))
            csv += "\(origin.url("/exif.jpg").absoluteString),with exif,s3\n"
            origin.route("/missing.jpg", .status(404))
            csv += "\(origin.url("/missing.jpg").absoluteString),missing,s4\n"
            let work = try TemporaryDirectory()
            let list = try DatasetFixture.write(csv, "rows.csv", in: work)
            for (mode, onlyIfBigger) in [("border", false), ("keep_ratio", true), ("center_crop", false)] {
                var outputs: [URL] = []
                for tool in ["webimage", "img2dataset"] {
                    let out = work.url.appendingPathComponent("\(tool)-\(mode)")
                    let arguments = ["--url_list=\(list)", "--input_format=csv", "--caption_col=caption",
                                     "--save_additional_columns=[source]", "--output_format=webdataset", "--image_size=64",
                                     "--resize_mode=\(mode)", "--resize_only_if_bigger=\(onlyIfBigger ? "True" : "False")",
                                     "--number_sample_per_shard=3", "--compute_hash=md5", "--output_folder=\(out.path)",
                                     "--processes_count=1", "--thread_count=4"]
                    if tool == "webimage" {
                        let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata"] + arguments)
                        #expect(run.status == 0, "\(run.err)")
                    } else {
                        #expect(try await Self.runReference(arguments, in: work) == 0)
                    }
                    outputs.append(out)
                }
                let (ours, theirs) = (outputs[0], outputs[1])
                for shard in ["00000", "00001"] {
                    let a = try DatasetFixture.tarMembers(ours.appendingPathComponent("\(shard).tar"))
                    let b = try DatasetFixture.tarMembers(theirs.appendingPathComponent("\(shard).tar"))
                    // img2dataset writes samples as they complete; names compared as sets.
                    #expect(Set(a.map(\.name)) == Set(b.map(\.name)), "\(mode) \(shard)")
                    let theirsByName = Dictionary(b.map { ($0.name, $0.data) }, uniquingKeysWith: { x, _ in x })
                    for member in a {
                        guard let other = theirsByName[member.name] else { continue }
                        if member.name.hasSuffix(".txt") { #expect(member.data == other, "\(member.name)") }
                        guard member.name.hasSuffix(".json") else { continue }
                        let x = try DatasetFixture.object(member.data), y = try DatasetFixture.object(other)
                        #expect(Set(x.keys) == Set(y.keys), "\(mode) \(member.name): \(x.keys.sorted()) vs \(y.keys.sorted())")
                        for field in ["source", "caption", "url", "key", "status", "width", "height", "original_width",
                                      "original_height", "md5"] {
                            #expect("\(x[field] ?? "none")" == "\(y[field] ?? "none")", "\(mode) \(member.name) \(field)")
                        }
                        let ex = (x["exif"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] } ?? [:]
                        let ey = (y["exif"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] } ?? [:]
                        for (key, value) in ex { #expect(ey[key] == value, "\(member.name) exif \(key)") }
                    }
                    #expect(!a.isEmpty, "\(mode) \(shard): no members")
                    // img2dataset's parquet metadata (read with the test venv's pyarrow) beside our
                    // JSON lines: the same columns in the same order, and per key the same status and message.
                    let script = """
                        import json, sys
                        import pyarrow.parquet as pq
                        table = pq.read_table(sys.argv[1])
                        print(json.dumps({"columns": table.column_names, "rows": table.to_pylist()}))
                        """
                    let read = try await Img2DatasetFixture.runPython(script, [theirs.appendingPathComponent("\(shard).parquet").path],
                                                                      in: work)
                    do {
                        let text = try #require(read, "pyarrow (the test venv) did not read img2dataset's \(shard).parquet")
                        let parquet = try DatasetFixture.object(Data(text.utf8))
                        let lines = try String(contentsOf: ours.appendingPathComponent("\(shard).jsonl"), encoding: .utf8)
                            .split(separator: "\n").map { try DatasetFixture.object(Data($0.utf8)) }
                        if let json = a.first(where: { $0.name.hasSuffix(".json") }) {
                            #expect(DatasetFixture.keyOrder(String(decoding: json.data, as: UTF8.self))
                                        == (parquet["columns"] as? [String] ?? []), "\(mode) \(shard) column order")
                        }
                        let rows = parquet["rows"] as? [[String: Any]] ?? []
                        #expect(rows.count == lines.count, "\(mode) \(shard)")
                        let byKey = Dictionary(rows.map { ("\($0["key"] ?? "")", $0) }, uniquingKeysWith: { x, _ in x })
                        for line in lines {
                            let key = "\(line["key"] ?? "")"
                            let row = try #require(byKey[key], "\(mode) \(key) missing from img2dataset's parquet")
                            for field in ["status", "error_message", "url", "caption", "source", "md5"] {
                                #expect("\(line[field] ?? "none")" == "\(row[field] ?? "none")", "\(mode) \(key) \(field)")
                            }
                            #expect(Set(line.keys) == Set((parquet["columns"] as? [String]) ?? []), "\(mode) \(key) columns")
                        }
                    }
                    let statsA = try DatasetFixture.object(Data(contentsOf: ours.appendingPathComponent("\(shard)_stats.json")))
                    let statsB = try DatasetFixture.object(Data(contentsOf: theirs.appendingPathComponent("\(shard)_stats.json")))
                    for field in ["count", "successes", "failed_to_download", "failed_to_resize"] {
                        #expect(statsA[field] as? Int == statsB[field] as? Int, "\(mode) \(shard) \(field)")
                    }
                }
            }
        }
    }

    /// The files both tools write into `out` (img2dataset's `.parquet` metadata read as our
    /// `.jsonl`; `_tmp` is img2dataset's own scratch folder), relative paths.
    static func names(_ out: URL) -> Set<String> {
        Set(DatasetFixture.tree(out).keys.filter { !$0.hasPrefix("_tmp") }.map {
            $0.hasSuffix(".parquet") ? String($0.dropLast("parquet".count)) + "jsonl" : $0
        })
    }

    @Test("txt with captions, oom_shard_count, JSON columns with verify_hash, dummy, extend, disable_all_reencoding, size filters, png, bbox_col: the same files")
    func sameFiles() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.img2dataset.path) else {
            print("skipped: no \(Self.img2dataset.path) (make test-img2dataset)")
            return
        }
        try await TestOrigin.with { origin in
            let png = try DatasetFixture.png(120, 90)
            var urls: [String] = []
            for i in 0..<5 {
                origin.route("/\(i).png", .init(body: png, contentType: "image/png"))
                urls.append(origin.url("/\(i).png").absoluteString)
            }
            let work = try TemporaryDirectory()
            let txt = try BulkFixture.list(urls, in: work)
            let good = DatasetFixture.sha256(png)
            let hashes = urls.indices.map { $0 == 2 ? String(repeating: "0", count: 64) : good }
            func column(_ values: [String]) -> String {
                "{" + values.enumerated().map { "\"\($0)\":\"\($1.replacingOccurrences(of: "/", with: "\\/"))\"" }
                    .joined(separator: ",") + "}"
            }
            let json = try DatasetFixture.write("{\"url\":\(column(urls)),\"h\":\(column(hashes))}", "rows.json", in: work)
            let boxes = try DatasetFixture.write(urls.map { "{\"url\": \"\($0)\", \"b\": [[0.1, 0.2, 0.5, 0.6]]}" }
                .joined(separator: "\n") + "\n", "rows.jsonl", in: work)
            let cases: [(String, [String], [[String]])] = [
                ("txt", ["--url_list=\(txt)", "--caption_col=caption", "--oom_shard_count=3", "--number_sample_per_shard=2"], [[]]),
                ("json", ["--url_list=\(json)", "--input_format=json", "--verify_hash=[h,sha256]"], [[]]),
                ("dummy", ["--url_list=\(txt)", "--output_format=dummy", "--number_sample_per_shard=2"], [[]]),
                ("reencoding", ["--url_list=\(txt)", "--disable_all_reencoding=True", "--compute_hash=sha512"], [[]]),
                ("filters", ["--url_list=\(txt)", "--max_aspect_ratio=1.2", "--noextract_exif"], [[]]),
                ("png", ["--url_list=\(txt)", "--encode_format=png", "--encode_quality=9", "--resize_mode=keep_ratio_largest", "--image_size=50",
                         "--resize_only_if_bigger"], [[]]),
                ("boxes", ["--url_list=\(boxes)", "--input_format=jsonl", "--bbox_col=b", "--resize_mode=no"], [[]]),
                ("extend", ["--url_list=\(txt)", "--number_sample_per_shard=3", "--output_format=webdataset"],
                 [[], ["--incremental_mode=extend"]]),
            ]
            for (name, arguments, runs) in cases {
                var trees: [URL] = []
                for tool in ["webimage", "img2dataset"] {
                    let out = work.url.appendingPathComponent("\(tool)-\(name)")
                    for extra in runs {
                        let all = arguments + extra + ["--output_folder=\(out.path)", "--processes_count=1", "--thread_count=4"]
                        if tool == "webimage" {
                            let run = try await WebImageTool.run(["img2dataset", "--jsonl_metadata"] + all)
                            #expect(run.status == 0, "\(name): \(run.err)")
                        } else {
                            #expect(try await Self.runReference(all, in: work) == 0, "\(name)")
                        }
                    }
                    trees.append(out)
                }
                #expect(Self.names(trees[0]) == Self.names(trees[1]), "\(name): \(Self.names(trees[0]).sorted()) vs \(Self.names(trees[1]).sorted())")
                // Per-sample JSON: the same fields and values (sizes, hash, status, caption).
                let theirs = DatasetFixture.tree(trees[1])
                for (path, data) in DatasetFixture.tree(trees[0]) where path.hasSuffix(".json") && !path.hasSuffix("_stats.json") {
                    guard let other = theirs[path] else { continue }
                    let x = try DatasetFixture.object(data), y = try DatasetFixture.object(other)
                    #expect(DatasetFixture.keyOrder(String(decoding: data, as: UTF8.self))
                                == DatasetFixture.keyOrder(String(decoding: other, as: UTF8.self)), "\(name) \(path)")
                    for field in x.keys where field != "exif" {
                        #expect("\(x[field] ?? "none")" == "\(y[field] ?? "none")", "\(name) \(path) \(field)")
                    }
                }
                for (path, data) in DatasetFixture.tree(trees[0]) where path.hasSuffix(".txt") {
                    #expect(theirs[path] == data, "\(name) \(path)")
                }
                for (path, data) in DatasetFixture.tree(trees[0]) where path.hasSuffix("_stats.json") {
                    let x = try DatasetFixture.object(data)
                    let y = try DatasetFixture.object(try #require(theirs[path]))
                    #expect(x["status_dict"] as? [String: Int] == y["status_dict"] as? [String: Int], "\(name) \(path)")
                }
            }
        }
    }

    @Test("bbox_col blurring beside img2dataset's (OpenCV's gaussian): close inside the box, equal far from it")
    func sameBlur() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.img2dataset.path) else {
            print("skipped: no \(Self.img2dataset.path) (make test-img2dataset)")
            return
        }
        try await TestOrigin.with { origin in
            let jpeg = try Corpus.data(DatasetFixture.jpegPath)
            origin.route("/a.jpg", .init(body: Array(jpeg), contentType: "image/jpeg"))
            let work = try TemporaryDirectory()
            let list = try DatasetFixture.write("{\"url\": \"\(origin.url("/a.jpg").absoluteString)\", \"b\": [[0.25, 0.25, 0.75, 0.75]]}\n",
                                                "rows.jsonl", in: work)
            let (a, b) = try await Self.firstSamples(
                ["--url_list=\(list)", "--input_format=jsonl", "--bbox_col=b", "--resize_mode=no",
                 "--encode_format=png", "--encode_quality=9", "--processes_count=1"], outputs: "", in: work)
            try #require(a.width == b.width && a.height == b.height && a.width == 512)
            // Box 128…384, grown by 25.6 → 102…409 (int truncation); its blur spreads ~2σ further.
            func meanDifference(_ xs: Range<Int>, _ ys: Range<Int>) -> Double {
                var total = 0, count = 0
                for y in ys {
                    for x in xs {
                        for c in 0..<3 {
                            total += abs(Int(a.bytes[(y * 512 + x) * 4 + c]) - Int(b.bytes[(y * 512 + x) * 4 + c]))
                            count += 1
                        }
                    }
                }
                return Double(total) / Double(count)
            }
            let inside = meanDifference(150..<360, 150..<360), corner = meanDifference(0..<40, 0..<40)
            print("bbox blur beside img2dataset: mean |Δ| inside \(inside), far corner \(corner)")
            #expect(inside < 2, "inside the box: mean |Δ| \(inside)")
            #expect(corner < 1.5, "far from the box: mean |Δ| \(corner)")
        }
    }

    @Test("interpolations beside img2dataset's OpenCV ones: the same sizes, pixels close (PSNR printed)")
    func sameResampling() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.img2dataset.path) else {
            print("skipped: no \(Self.img2dataset.path) (make test-img2dataset)")
            return
        }
        try await TestOrigin.with { origin in
            origin.route("/a.jpg", .init(body: Array(try Corpus.data(DatasetFixture.jpegPath)), contentType: "image/jpeg"))
            let work = try TemporaryDirectory()
            let list = try BulkFixture.list([origin.url("/a.jpg").absoluteString], in: work)
            // OpenCV's LANCZOS4 does not widen its kernel when shrinking (it aliases); our Lanczos3
            // does, hence the lower floor for lanczos down.
            for (name, size, floor) in [("area", 200, 35.0), ("lanczos", 200, 25.0), ("bilinear", 700, 45.0), ("bicubic", 700, 40.0)] {
                let (a, b) = try await Self.firstSamples(
                    ["--url_list=\(list)", "--resize_mode=keep_ratio", "--image_size=\(size)",
                     "--downscale_interpolation=\(name)", "--upscale_interpolation=\(name)",
                     "--encode_format=png", "--encode_quality=9", "--processes_count=1"], outputs: "-\(name)", in: work)
                #expect(a.width == size && a.height == size && b.width == size && b.height == size, "\(name)")
                guard a.width == b.width, a.height == b.height else { continue }
                var squared = 0.0
                for i in 0..<(a.width * a.height) {
                    for c in 0..<3 {
                        let d = Double(a.bytes[i * 4 + c]) - Double(b.bytes[i * 4 + c])
                        squared += d * d
                    }
                }
                let mse = squared / Double(a.width * a.height * 3)
                let psnr = mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
                print("\(name) to \(size): PSNR beside img2dataset \(String(format: "%.1f", psnr)) dB")
                #expect(psnr > floor, "\(name): \(psnr) dB")
            }
        }
    }
}
