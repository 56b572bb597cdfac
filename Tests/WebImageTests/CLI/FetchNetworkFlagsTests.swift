import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// `--retries`, `--block-private-addresses` and `--http-cache` through the built tool.
@Suite("webimage fetch/prefetch: network flags", .serialized, .timeLimit(.minutes(3)))
struct FetchNetworkFlagsTests {
    static let png = "png/image-png/basi3p01_2.png"

    static func image() throws -> [UInt8] { Array(try Corpus.data(png)) }

    @Test("--retries N retries a 503 and the JSON line counts the attempts; without it the load fails")
    func retries() async throws {
        try await TestOrigin.with { origin in
            origin.route("/flaky.png", failing: 2, then: .init(body: try Self.image(), contentType: "image/png"))
            let url = origin.url("/flaky.png").absoluteString
            let once = try await WebImageTool.run(["fetch", url, "--memory-only", "--json"])
            #expect(once.status == 1)
            let retried = try await WebImageTool.run(["fetch", url, "--memory-only", "--json", "--retries", "3"])
            #expect(retried.status == 0, "\(retried.err)")
            let line = try #require(try retried.jsonLines().first)
            #expect(line["ok"] as? Bool == true)
            #expect(line["attempts"] as? Int == 2)
            #expect(origin.requestCount("/flaky.png") == 3)

            let cache = try TemporaryDirectory()
            origin.route("/flaky2.png", failing: 1, then: .init(body: try Self.image(), contentType: "image/png"))
            let prefetch = try await WebImageTool.run(
                ["prefetch", origin.url("/flaky2.png").absoluteString, "--cache-dir", cache.path, "--retries", "1", "--json"])
            #expect(prefetch.status == 0, "\(prefetch.err)")
            #expect(origin.requestCount("/flaky2.png") == 2)
        }
    }

    @Test("--retries rejects values outside 0…99 with exit 2", arguments: ["-1", "100", "1e9", "x", "nan"])
    func badRetries(_ value: String) async throws {
        let run = try await WebImageTool.run(["fetch", "http://127.0.0.1:9/a.png", "--retries", value])
        #expect(run.status == 2, "\(value): \(run.err)")
    }

    @Test("--block-private-addresses refuses loopback with forbiddenAddress (2011) before connecting, and file: URLs")
    func blockPrivate() async throws {
        try await TestOrigin.with { origin in
            origin.route("/a.png", .init(body: try Self.image(), contentType: "image/png"))
            let dir = try TemporaryDirectory()
            let file = dir.url.appendingPathComponent("a.png")
            try Data(try Self.image()).write(to: file)
            let urls = [origin.url("/a.png").absoluteString, "http://localhost:\(origin.port)/a.png", file.absoluteString]
            let run = try await WebImageTool.run(["fetch"] + urls + ["--memory-only", "--json", "--block-private-addresses"])
            #expect(run.status == 1)
            let lines = try run.jsonLines()
            try #require(lines.count == 3)
            for line in lines.prefix(2) {
                let error = line["error"] as? [String: Any]
                #expect(error?["code"] as? Int == 2011)
                #expect(error?["name"] as? String == "forbiddenAddress")
            }
            #expect(lines[2]["ok"] as? Bool == false)
            #expect(origin.connectionCount == 0)

            let allowed = try await WebImageTool.run(["fetch"] + urls + ["--memory-only", "--json"])
            #expect(allowed.status == 0, "\(allowed.err)")
        }
    }

    @Test("--http-cache: a fresh entry makes no request in the next run; a stale one is revalidated")
    func httpCache() async throws {
        try await TestOrigin.with { origin in
            origin.route("/fresh.png", .init(body: try Self.image(), contentType: "image/png", headers: [("Cache-Control", "max-age=3600")]))
            var stale = TestOrigin.Response(body: try Self.image(), contentType: "image/png", headers: [("Cache-Control", "no-cache")])
            stale.etag = "\"s1\""
            origin.route("/stale.png", stale)
            let cache = try TemporaryDirectory()
            let urls = [origin.url("/fresh.png").absoluteString, origin.url("/stale.png").absoluteString]
            for _ in 0..<2 {
                let run = try await WebImageTool.run(["fetch"] + urls + ["--cache-dir", cache.path, "--json", "--http-cache"])
                #expect(run.status == 0, "\(run.err)")
            }
            #expect(origin.requestCount("/fresh.png") == 1)
            #expect(origin.requestCount("/stale.png") == 2)
            #expect(origin.requestHeaders("/stale.png").last?["if-none-match"] == "\"s1\"")
        }
    }
}
