import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin

/// Our tar shards read by the `webdataset` Python package (installed by `make test-venv`),
/// the reader img2dataset's users train from: every sample's key, image, caption and JSON
/// come back as the list gave them.
@Suite("webimage fetch: shards read by the webdataset package", .serialized, .timeLimit(.minutes(3)))
struct DatasetWebDatasetReaderTests {
    static let python = Corpus.packageRoot.appendingPathComponent(".build-test/venv/bin/python")

    static let script = """
        import hashlib, json, sys
        import webdataset as wds
        for sample in wds.WebDataset(sys.argv[1:], shardshuffle=False):
            meta = json.loads(sample["json"])
            print(json.dumps({"key": sample["__key__"], "url": sample["__url__"],
                              "extensions": sorted(k for k in sample if not k.startswith("__")),
                              "caption": sample["txt"].decode("utf-8"), "json": meta,
                              "image": hashlib.sha256(sample["jpg"]).hexdigest()}))
        """

    @Test("webdataset.WebDataset yields every successful row with its image, caption and JSON")
    func readBack() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python.path), "no \(Self.python.path): run `make test-venv`")
        try await TestOrigin.with { origin in
            let body = try DatasetFixture.png(120, 80)
            var csv = "url,caption,source\n"
            var captions: [String: String] = [:]
            for i in 0..<25 {
                let path = "/\(i).png"
                if i % 7 == 3 {
                    origin.route(path, .status(404))
                } else {
                    origin.route(path, .init(body: body, contentType: "image/png"))
                }
                let caption = "image \(i), \u{201C}quoted\u{201D} \u{1F600}"
                captions[origin.url(path).absoluteString] = caption
                csv += "\(origin.url(path).absoluteString),\"\(caption)\",src\(i)\n"
            }
            let work = try TemporaryDirectory()
            let list = try DatasetFixture.write(csv, "rows.csv", in: work)
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run(["fetch", "--file", list, "--input-format", "csv", "--caption-col", "caption",
                                                  "--save-additional-columns", "source", "--output-format", "webdataset",
                                                  "--number-sample-per-shard", "10", "--out", out.path])
            #expect(run.status == 0, "\(run.err)")
            let shards = ["00000.tar", "00001.tar", "00002.tar"].map { out.appendingPathComponent($0).path }
            let scriptPath = try DatasetFixture.write(Self.script, "read.py", in: work)
            let process = Process()
            process.executableURL = Self.python
            process.arguments = [scriptPath] + shards
            let output = work.url.appendingPathComponent("read.out")
            FileManager.default.createFile(atPath: output.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = try FileHandle(forWritingTo: output)
            try process.run()
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async { process.waitUntilExit(); c.resume() }
            }
            let text = try String(contentsOf: output, encoding: .utf8)
            #expect(process.terminationStatus == 0, "\(text)")
            let samples = try text.split(separator: "\n").map { try DatasetFixture.object(Data($0.utf8)) }
            let expectedKeys = (0..<25).filter { $0 % 7 != 3 }.map { DatasetFixture.key(shard: $0 / 10, index: $0 % 10, perShard: 10) }
            #expect(samples.map { $0["key"] as? String } == expectedKeys)
            for sample in samples {
                #expect(sample["extensions"] as? [String] == ["jpg", "json", "txt"])
                let meta = try #require(sample["json"] as? [String: Any])
                let url = try #require(meta["url"] as? String)
                #expect(sample["caption"] as? String == captions[url])
                #expect(meta["caption"] as? String == captions[url])
                #expect(meta["key"] as? String == sample["key"] as? String)
                #expect(meta["source"] as? String == "src" + (url.split(separator: "/").last ?? "").dropLast(4))
                #expect(meta["sha256"] as? String == DatasetFixture.sha256(body))
            }
            // The image bytes the package read are the ones in the tar, and they decode to 256×256.
            let members = try DatasetFixture.tarMembers(URL(fileURLWithPath: shards[0]))
            let first = try #require(members.first { $0.name.hasSuffix(".jpg") })
            #expect(samples.first?["image"] as? String == DatasetFixture.sha256(first.data))
            let image = try ImageCodersManager.shared.decode(first.data, options: ImageDecodeOptions())
            #expect(image.width == 256 && image.height == 256)
        }
    }
}
