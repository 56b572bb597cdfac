import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

@Suite("webimage prefetch: the command-line contract", .serialized, .timeLimit(.minutes(2)))
struct PrefetchCommandTests {
    @Test("--json: one line per URL in input order; failures in place; exit 1; a second run finds them on disk")
    func jsonAndCache() async throws {
        try await TestOrigin.with { origin in
            origin.route("/a.gif", .init(body: Array(try Corpus.data(FetchCommandTests.gif)), contentType: "image/gif",
                                         delay: .milliseconds(300)))
            origin.route("/b.png", .init(body: Array(try Corpus.data(FetchCommandTests.png)), contentType: "image/png"))
            let cache = try TemporaryDirectory()
            let urls = ["/a.gif", "/missing.png", "/b.png"].map { origin.url($0).absoluteString }

            let first = try await WebImageTool.run(["prefetch"] + urls + ["--cache-dir", cache.path, "--json"])
            #expect(first.status == 1)
            let lines = try first.jsonLines()
            try #require(lines.count == 3)
            #expect(lines.map { $0["url"] as? String } == urls)
            #expect(lines.map { $0["ok"] as? Bool } == [true, false, true])
            #expect(lines[0]["cacheType"] as? String == "none" && lines[0]["format"] as? String == "gif")
            #expect(lines[0]["frames"] as? Int == 4)
            #expect(lines[2]["bytes"] as? Int == (try Corpus.data(FetchCommandTests.png)).count)
            #expect((lines[1]["error"] as? [String: Any])?["code"] as? Int == 2001)

            let okOnly = [urls[0], urls[2]]
            let second = try await WebImageTool.run(["prefetch"] + okOnly + ["--cache-dir", cache.path, "--json"])
            #expect(second.status == 0)
            #expect(try second.jsonLines().map { $0["cacheType"] as? String } == ["disk", "disk"])
            #expect(origin.requestCount("/a.gif") == 1 && origin.requestCount("/b.png") == 1)
        }
    }

    @Test("--file LIST skips blank lines and comments; - reads stdin; plain output counts")
    func listFile() async throws {
        try await TestOrigin.with { origin in
            origin.route("/b.png", .init(body: Array(try Corpus.data(FetchCommandTests.png)), contentType: "image/png"))
            let directory = try TemporaryDirectory()
            let list = directory.url.appendingPathComponent("urls.txt")
            try Data("# gallery\n\n\(origin.url("/b.png").absoluteString)\n".utf8).write(to: list)
            let run = try await WebImageTool.run(["prefetch", "--file", list.path, "--cache-dir", directory.path])
            #expect(run.status == 0, "\(run.err)")
            #expect(run.out.hasPrefix("prefetched 1 of 1 URLs"))

            let piped = try await WebImageTool.run(["prefetch", "--file", "-", "--cache-dir", directory.path, "--json"],
                                                   stdin: Data(origin.url("/b.png").absoluteString.utf8))
            #expect(try piped.jsonLines().first?["cacheType"] as? String == "disk")
        }
    }

    @Test("bad usage exits 2")
    func usage() async throws {
        #expect(try await WebImageTool.run(["prefetch"]).status == 2)
        #expect(try await WebImageTool.run(["prefetch", "http://127.0.0.1:9/a.png", "--file", "x"]).status == 2)
        #expect(try await WebImageTool.run(["prefetch", "http://127.0.0.1:9/a.png", "--concurrency", "0"]).status == 2)
    }
}
