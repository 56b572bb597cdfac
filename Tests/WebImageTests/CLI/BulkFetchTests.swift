import Foundation
import Testing
@testable import WebImage
import WebImageTestOrigin

/// `webimage fetch --file`: the list, the order of `--json`, duplicates and `--out`.
@Suite("webimage fetch bulk: list, order, output files", .serialized, .timeLimit(.minutes(3)))
struct BulkFetchTests {
    @Test("--file - reads stdin, skips blank lines and comments, keeps input order; a repeated URL loads once")
    func stdinOrderAndDuplicates() async throws {
        try await TestOrigin.with { origin in
            var urls = try BulkFixture.serveImages(origin, count: 6)
            // The first answers last, so input order differs from finishing order.
            origin.route("/late.png", .init(body: Array(try Corpus.data(BulkFixture.png)), contentType: "image/png",
                                            delay: .milliseconds(300)))
            urls.insert(origin.url("/late.png").absoluteString, at: 0)
            urls.append(urls[1])
            let input = "# images\n\n" + urls.joined(separator: "\n  \n") + "\n#end"
            let run = try await WebImageTool.run(["fetch", "--file", "-", "--memory-only", "--json"], stdin: Data(input.utf8))
            #expect(run.status == 0, "\(run.err)")
            let lines = try run.jsonLines()
            #expect(lines.map { $0["url"] as? String } == urls)
            #expect(lines.map { $0["index"] as? Int } == Array(0..<urls.count))
            #expect(lines.last?["duplicateOf"] as? Int == 1 && lines.last?["ok"] as? Bool == true)
            #expect(origin.requestCount("/img/0.jpg") == 1)
            #expect(run.err.contains("fetched 8 of 8 URLs"))

            let unordered = try await WebImageTool.run(["fetch", "--file", "-", "--memory-only", "--json", "--unordered"],
                                                       stdin: Data(input.utf8))
            #expect(unordered.status == 0)
            let finished = try unordered.jsonLines().compactMap { $0["url"] as? String }
            #expect(finished.sorted() == urls.sorted())
            #expect(finished.first != urls[0], "the slow first URL finishes last")
        }
    }

    /// Issue #50 item 5: the repeat's index had no file, though files are named by index.
    @Test("--out: a repeated URL loads once and each of its lines has a file under its own index, same bytes")
    func duplicateFiles() async throws {
        let origin = try await TestOrigin.start()
        do { try await Self.duplicateFiles(origin) } catch {
            await origin.shutdown()
            throw error
        }
        await origin.shutdown()
    }

    private static func duplicateFiles(_ origin: TestOrigin) async throws {
        let urls = try BulkFixture.serveImages(origin, count: 2)
        let work = try TemporaryDirectory()
        let list = try BulkFixture.list([urls[0], urls[1], urls[0], urls[0]], in: work)
        for layout in [[], ["--out-layout", "shards:2"]] {
            let out = work.url.appendingPathComponent("out\(layout.count)")
            let run = try await WebImageTool.run(["fetch", "--file", list, "--memory-only", "--out", out.path, "--json"] + layout)
            #expect(run.status == 0, "\(run.err)")
            let files = BulkFixture.files(in: out)
            let names = layout.isEmpty ? (0..<4).map { String(format: "%09d.jpg", $0) }
                : ["00000/000000000.jpg", "00000/000000001.jpg", "00001/000000002.jpg", "00001/000000003.jpg"]
            #expect(files.keys.sorted() == names, "\(files.keys.sorted())")
            #expect(files[names[2]] == files[names[0]] && files[names[3]] == files[names[0]] && files[names[0]] != nil)
            let lines = try run.jsonLines()
            #expect(lines[2]["duplicateOf"] as? Int == 0 && lines[2]["file"] as? String == out.path + "/" + names[2], "\(lines[2])")
        }
        #expect(origin.requestCount("/img/0.jpg") == 2, "one transfer per run")
    }

    @Test("--out with --format, --quality, --thumbnail and --out-layout shards:N names files by index")
    func outputFiles() async throws {
        try await TestOrigin.with { origin in
            let urls = try BulkFixture.serveImages(origin, count: 5)
            let work = try TemporaryDirectory()
            let list = try BulkFixture.list(urls, in: work)
            let out = work.url.appendingPathComponent("png")
            let run = try await WebImageTool.run(["fetch", "--file", list, "--memory-only", "--out", out.path, "--format", "png",
                                                  "--thumbnail", "64x64", "--out-layout", "shards:2", "--json"])
            #expect(run.status == 0, "\(run.err)")
            let files = BulkFixture.files(in: out)
            #expect(files.keys.sorted() == ["00000/000000000.png", "00000/000000001.png", "00001/000000002.png",
                                            "00001/000000003.png", "00002/000000004.png"])
            #expect(files.values.allSatisfy { $0.starts(with: [0x89, 0x50, 0x4E, 0x47]) })
            let first = try #require(try run.jsonLines().first)
            #expect(first["width"] as? Int == 64 && first["file"] as? String == out.path + "/00000/000000000.png")
            #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent(".partial").path))

            var sizes: [Int] = []
            for quality in ["10", "95"] {
                let dir = work.url.appendingPathComponent("q" + quality)
                let jpeg = try await WebImageTool.run(["fetch", urls[0], "--memory-only", "--out", dir.path, "--format", "jpeg",
                                                       "--quality", quality, "--json"])
                #expect(jpeg.status == 0, "\(jpeg.err)")
                let data = try Data(contentsOf: dir.appendingPathComponent("000000000.jpg"))
                #expect(data.starts(with: [0xFF, 0xD8]))
                sizes.append(data.count)
            }
            #expect(sizes[0] < sizes[1], "quality 10 is smaller than 95")

            let webp = work.url.appendingPathComponent("webp")
            let asWebP = try await WebImageTool.run(["fetch", urls[1], "--memory-only", "--out", webp.path, "--format", "webp"])
            #expect(asWebP.status == 0, "\(asWebP.err)")
            let webpData = try Data(contentsOf: webp.appendingPathComponent("000000000.webp"))
            #expect(String(decoding: webpData[8..<12], as: UTF8.self) == "WEBP")

            // No --format, no --thumbnail: the downloaded bytes as they came.
            let plain = work.url.appendingPathComponent("plain")
            let asIs = try await WebImageTool.run(["fetch", urls[2], "--memory-only", "--out", plain.path, "--manifest",
                                                   work.url.appendingPathComponent("m.jsonl").path])
            #expect(asIs.status == 0, "\(asIs.err)")
            #expect(try Data(contentsOf: plain.appendingPathComponent("000000000.jpg")) == Corpus.data(BulkFixture.jpeg))
        }
    }

    @Test("bad usage of the bulk flags exits 2")
    func usage() async throws {
        let work = try TemporaryDirectory()
        let list = try BulkFixture.list(["http://127.0.0.1:9/x.png"], in: work)
        let out = work.url.appendingPathComponent("out").path
        var cases: [[String]] = [
            ["--quality", "0"], ["--quality", "101"], ["--quality", "-5"], ["--quality", "nan"],
            ["--shard", "4/4"], ["--shard", "-1/4"], ["--shard", "0/0"], ["--shard", "x"], ["--shard", "1/2000000"],
            ["--out-layout", "shards:0"], ["--out-layout", "shards:x"], ["--out-layout", "tree"],
            ["--format", "gif"], ["--resume"], ["--format", "png", "--no-out"],
        ]
        if !ImageCodersManager.shared.canEncode(to: .avif) { cases.append(["--format", "avif"]) }
        for extra in cases {
            let outArgs = extra.contains("--no-out") ? [] : ["--out", out]
            let run = try await WebImageTool.run(["fetch", "--file", list] + outArgs + extra.filter { $0 != "--no-out" })
            #expect(run.status == 2, "\(extra): \(run.err)")
            #expect(run.out.isEmpty)
        }
        let missing = try await WebImageTool.run(["fetch", "--file", work.url.appendingPathComponent("none").path])
        #expect(missing.status == 2 && missing.err.contains("cannot read --file"))
        let both = try await WebImageTool.run(["fetch", "http://127.0.0.1:9/y.png", "--file", list])
        #expect(both.status == 2)
    }
}
