import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// `webimage fetch` against a real origin in the test process, through the built tool.
@Suite("webimage fetch: the command-line contract", .serialized, .timeLimit(.minutes(3)))
struct FetchCommandTests {
    static let gif = "gif/gif-test-suite/animated_loop.gif"
    static let png = "png/image-png/basi3p01_2.png"
    static let jpeg = "jpeg/jpeg-decoder/tower_progressive.jpg"

    /// An origin serving three corpus files; the first answers last.
    /// Runs `body` with an origin serving the three images; awaits its shutdown on every exit.
    func withGallery(_ body: (TestOrigin) async throws -> Void) async throws {
        try await TestOrigin.with { origin in
            origin.route("/anim.gif", .init(body: Array(try Corpus.data(Self.gif)), contentType: "image/gif", delay: .milliseconds(400)))
            origin.route("/small.png", .init(body: Array(try Corpus.data(Self.png)), contentType: "image/png"))
            origin.route("/tower.jpg", .init(body: Array(try Corpus.data(Self.jpeg)), contentType: "image/jpeg"))
            try await body(origin)
        }
    }

    @Test("--json: one line per URL in input order with the design's fields; exit 0")
    func jsonShapeAndOrder() async throws {
        try await withGallery { origin in
            let cache = try TemporaryDirectory()
            let urls = ["/anim.gif", "/small.png", "/tower.jpg"].map { origin.url($0).absoluteString }
            let run = try await WebImageTool.run(["fetch"] + urls + ["--cache-dir", cache.path, "--json"])
            #expect(run.status == 0, "\(run.err)")
            let lines = try run.jsonLines()
            try #require(lines.count == 3)
            #expect(lines.map { $0["url"] as? String } == urls)
            #expect(run.lines[0].hasPrefix("{\"url\":\"\(urls[0])\",\"ok\":true,\"cacheType\":\"none\",\"format\":\"gif\""))
            let gif = lines[0]
            #expect(gif["width"] as? Int == 100 && gif["height"] as? Int == 100)
            #expect(gif["frames"] as? Int == 4 && gif["loopCount"] as? Int == 0)
            #expect(gif["bytes"] as? Int == (try Corpus.data(Self.gif)).count)
            #expect((gif["ms"] as? Double ?? -1) >= 400)
            #expect(gif["partials"] as? Int == 0)
            #expect(lines[1]["format"] as? String == "png" && lines[1]["width"] as? Int == 32)
            #expect(lines[2]["format"] as? String == "jpeg" && lines[2]["width"] as? Int == 512)
        }
    }

    @Test("equal URLs coalesce into one request; --sequential finds the later ones in memory")
    func coalescing() async throws {
        try await withGallery { origin in
            let url = origin.url("/tower.jpg").absoluteString
            let together = try await WebImageTool.run(["fetch", url, url, url, "--memory-only", "--json"])
            #expect(together.status == 0)
            #expect(try together.jsonLines().count == 3)
            #expect(origin.requestCount("/tower.jpg") == 1)

            let sequential = try await WebImageTool.run(["fetch", url, url, url, "--memory-only", "--sequential", "--json"])
            #expect(sequential.status == 0)
            #expect(try sequential.jsonLines().map { $0["cacheType"] as? String } == ["none", "memory", "memory"])
            #expect(origin.requestCount("/tower.jpg") == 2)
        }
    }

    @Test("a second process finds the image in --cache-dir on disk; --memory-only does not")
    func diskCacheAcrossRuns() async throws {
        try await withGallery { origin in
            let cache = try TemporaryDirectory()
            let url = origin.url("/small.png").absoluteString
            let first = try await WebImageTool.run(["fetch", url, "--cache-dir", cache.path, "--json"])
            let second = try await WebImageTool.run(["fetch", url, "--cache-dir", cache.path, "--json"])
            #expect(try first.jsonLines().first?["cacheType"] as? String == "none")
            #expect(try second.jsonLines().first?["cacheType"] as? String == "disk")
            #expect(origin.requestCount("/small.png") == 1)

            let memoryOnly = try await WebImageTool.run(["fetch", url, "--cache-dir", cache.path, "--memory-only", "--json"])
            #expect(try memoryOnly.jsonLines().first?["cacheType"] as? String == "none")
            #expect(origin.requestCount("/small.png") == 2)
        }
    }

    @Test("a failed URL gives ok:false with code, name and message, in its place; exit 1")
    func failures() async throws {
        try await withGallery { origin in
            let urls = [origin.url("/gone.png").absoluteString, origin.url("/small.png").absoluteString]
            let run = try await WebImageTool.run(["fetch"] + urls + ["--memory-only", "--json"])
            #expect(run.status == 1)
            let lines = try run.jsonLines()
            try #require(lines.count == 2)
            #expect(lines[0]["ok"] as? Bool == false)
            let error = try #require(lines[0]["error"] as? [String: Any])
            #expect(error["code"] as? Int == 2001 && error["name"] as? String == "invalidDownloadStatusCode")
            #expect((error["message"] as? String)?.contains("404") == true)
            #expect(lines[1]["ok"] as? Bool == true)
            #expect(run.err.contains("invalidDownloadStatusCode (2001)"))

            let slow = origin.url("/slow.png")
            origin.route("/slow.png", .init(body: Array(try Corpus.data(Self.png)), contentType: "image/png", delay: .seconds(3)))
            let timedOut = try await WebImageTool.run(["fetch", slow.absoluteString, "--timeout", "0.5", "--memory-only", "--json"])
            #expect(timedOut.status == 1)
            #expect((try timedOut.jsonLines().first?["error"] as? [String: Any])?["name"] as? String == "timedOut")
        }
    }

    @Test("bad usage exits 2")
    func usage() async throws {
        let url = "http://127.0.0.1:9/x.png"
        for arguments in [["fetch"], ["fetch", url, "--option", "noSuchOption"], ["fetch", url, "--thumbnail", "0x5"],
                          ["fetch", url, "--header", "no colon"], ["fetch", url, "--concurrency", "0"],
                          ["fetch", url, "--timeout", "-1"], ["fetch", url, "--bogus"]] {
            let run = try await WebImageTool.run(arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.out.isEmpty)
        }
    }

    @Test("--header, --option progressiveLoad, --thumbnail and --out")
    func options() async throws {
        try await withGallery { origin in
            let body = Array(try Corpus.data(Self.jpeg))
            origin.route("/private.jpg") { request in
                request.headers["x-token"] == "secret"
                    ? .init(body: body, contentType: "image/jpeg", delivery: .chunked(pieces: 12, pause: .milliseconds(60)))
                    : .status(403)
            }
            let url = origin.url("/private.jpg").absoluteString
            let denied = try await WebImageTool.run(["fetch", url, "--memory-only", "--json"])
            #expect((try denied.jsonLines().first?["error"] as? [String: Any])?["code"] as? Int == 2001)

            let out = try TemporaryDirectory()
            let run = try await WebImageTool.run(["fetch", url, "--memory-only", "--json", "--header", "X-Token: secret",
                                                  "--option", "progressiveLoad", "--out", out.path])
            #expect(run.status == 0, "\(run.err)")
            let line = try #require(try run.jsonLines().first)
            #expect((line["partials"] as? Int ?? 0) > 0)
            let written = out.url.appendingPathComponent(CacheKey.fileName(for: url))
            #expect(try Data(contentsOf: written) == Data(body))

            let thumb = try await WebImageTool.run(["fetch", url, "--memory-only", "--json", "--header", "X-Token: secret",
                                                    "--thumbnail", "64x64", "--out", out.path])
            let small = try #require(try thumb.jsonLines().first)
            #expect(small["width"] as? Int == 64 && small["height"] as? Int == 64)
            let key = CacheKey.thumbnailed(url, pixelSize: PixelSize(width: 64, height: 64))
            let decoded = try ImageCodersManager.shared.decode(
                try Data(contentsOf: out.url.appendingPathComponent(CacheKey.fileName(for: key))), options: .init())
            #expect(decoded.width == 64)
        }
    }

    @Test("show draws an http URL too")
    func showURL() async throws {
        try await withGallery { origin in
            let run = try await WebImageTool.run(["show", origin.url("/small.png").absoluteString, "--width", "8"])
            #expect(run.status == 0, "\(run.err)")
            #expect(run.lines.count == 4)
        }
    }
}
