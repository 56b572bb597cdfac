import Foundation
import Testing
import WebImageTestOrigin

/// `--manifest`: one line per finished URL, bad input included, and `--resume`.
@Suite("webimage fetch bulk: manifest lines for bad input", .serialized, .timeLimit(.minutes(3)))
struct BulkManifestTests {
    @Test("blank lines, comments, invalid URLs, 404, HTML, timeouts, bombs, overlong lines: each its line and error name")
    func badInput() async throws {
        try await TestOrigin.with { origin in
            let good = try BulkFixture.serveImages(origin, count: 2)
            origin.route("/page.jpg", .init(body: Array("<html><body>not an image</body></html>".utf8), contentType: "text/html"))
            origin.route("/slow.jpg", .init(body: Array(try Corpus.data(BulkFixture.jpeg)), contentType: "image/jpeg",
                                            delay: .seconds(3)))
            origin.route("/bomb.gif", .init(body: Array(try Corpus.data("gif/pillow/decompression_bomb.gif")),
                                            contentType: "image/gif"))
            let expected: [(String, String?)] = [
                (good[0], nil),
                ("not a url", "invalidURL"),
                (origin.url("/missing.jpg").absoluteString, "invalidDownloadStatusCode"),
                (origin.url("/page.jpg").absoluteString, nil),
                (origin.url("/slow.jpg").absoluteString, "timedOut"),
                (origin.url("/bomb.gif").absoluteString, nil),
                (good[0], nil),
                ("http://" + String(repeating: "a", count: 70_000), "invalidURL"),
                (good[1], nil),
            ]
            let work = try TemporaryDirectory()
            let lines = ["# a comment", ""] + expected.map(\.0) + ["", "   "]
            let list = try BulkFixture.list(lines, in: work)
            let manifest = work.url.appendingPathComponent("manifest.jsonl").path
            let run = try await WebImageTool.run(["fetch", "--file", list, "--memory-only", "--timeout", "1.5",
                                                  "--manifest", manifest, "--out", work.url.appendingPathComponent("out").path])
            #expect(run.status == 1)
            let records = BulkFixture.manifest(manifest).sorted { ($0["index"] as? Int ?? 0) < ($1["index"] as? Int ?? 0) }
            try #require(records.count == expected.count, "\(records)")
            for (record, (url, errorName)) in zip(records, expected) {
                if url.count < 1000 { #expect(record["url"] as? String == url) }
                let error = record["error"] as? [String: Any]
                if let errorName {
                    #expect(error?["name"] as? String == errorName, "\(String(describing: record).prefix(300))")
                } else if url.hasSuffix("page.jpg") || url.hasSuffix("bomb.gif") {
                    #expect(record["ok"] as? Bool == false && error?["name"] != nil, "\(record)")
                } else {
                    #expect(record["ok"] as? Bool == true, "\(record)")
                    #expect((record["file"] as? String)?.hasSuffix(".jpg") == true)
                }
            }
            #expect(records[2]["status"] as? Int == 404)
            #expect(records[6]["duplicateOf"] as? Int == 0)
            #expect(origin.requestCount("/img/0.jpg") == 1)
            // The summary counts failures by error name.
            #expect(run.out.contains("failed 6:") && run.out.contains("invalidURL 2"), "\(run.out)")
        }
    }

    @Test("--resume skips the URLs the manifest lists as ok and retries the failed ones")
    func resumeSkipsFinished() async throws {
        try await TestOrigin.with { origin in
            let urls = try BulkFixture.serveImages(origin, count: 3) + [origin.url("/later.jpg").absoluteString]
            let work = try TemporaryDirectory()
            let list = try BulkFixture.list(urls, in: work)
            let manifest = work.url.appendingPathComponent("m.jsonl").path
            let arguments = ["fetch", "--file", list, "--memory-only", "--manifest", manifest, "--resume"]
            let first = try await WebImageTool.run(arguments)
            #expect(first.status == 1)
            origin.route("/later.jpg", .init(body: Array(try Corpus.data(BulkFixture.jpeg)), contentType: "image/jpeg"))
            let second = try await WebImageTool.run(arguments)
            #expect(second.status == 0, "\(second.err)")
            #expect(second.out.contains("skipped 3"), "\(second.out)")
            #expect(origin.requestCount("/img/0.jpg") == 1)
            let records = BulkFixture.manifest(manifest)
            #expect(records.count == 5)
            #expect(Set(records.filter { $0["ok"] as? Bool == true }.compactMap { $0["url"] as? String }) == Set(urls))
        }
    }

    @Test("prefetch --file with --manifest and --shard streams the list into the disk cache")
    func prefetchShard() async throws {
        try await TestOrigin.with { origin in
            let urls = try BulkFixture.serveImages(origin, count: 4)
            let work = try TemporaryDirectory()
            let list = try BulkFixture.list(urls, in: work)
            let cache = work.url.appendingPathComponent("cache").path
            let manifest = work.url.appendingPathComponent("m.jsonl").path
            let prefetch = try await WebImageTool.run(["prefetch", "--file", list, "--shard", "1/2", "--manifest", manifest,
                                                       "--cache-dir", cache, "--json"])
            #expect(prefetch.status == 0, "\(prefetch.err)")
            #expect(try prefetch.jsonLines().compactMap { $0["index"] as? Int } == [1, 3])
            #expect(BulkFixture.manifest(manifest).count == 2)
            let fetch = try await WebImageTool.run(["fetch", "--file", list, "--cache-dir", cache, "--json"])
            #expect(try fetch.jsonLines().map { $0["cacheType"] as? String } == ["none", "disk", "none", "disk"])
            let bad = try await WebImageTool.run(["prefetch", "--file", list, "--shard", "2/2"])
            #expect(bad.status == 2)
        }
    }

    @Test("--block-private-addresses applies to bulk loads: loopback and file: URLs fail with their error")
    func addressGuard() async throws {
        try await TestOrigin.with { origin in
            let urls = try BulkFixture.serveImages(origin, count: 1) + [Corpus.root.appendingPathComponent(BulkFixture.jpeg).absoluteString]
            let work = try TemporaryDirectory()
            let manifest = work.url.appendingPathComponent("m.jsonl").path
            let run = try await WebImageTool.run(["fetch", "--file", try BulkFixture.list(urls, in: work), "--memory-only",
                                                  "--block-private-addresses", "--manifest", manifest])
            #expect(run.status == 1)
            let records = BulkFixture.manifest(manifest).sorted { ($0["index"] as? Int ?? 0) < ($1["index"] as? Int ?? 0) }
            try #require(records.count == 2)
            #expect((records[0]["error"] as? [String: Any])?["name"] as? String == "forbiddenAddress")
            #expect(records[1]["ok"] as? Bool == false)
            #expect(origin.requestCount("/img/0.jpg") == 0)
        }
    }
}
