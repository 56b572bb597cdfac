import AsyncHTTPClient
import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin

/// `webimage serve`'s `/metrics` carries the library's metrics (`WebImageMetrics`): a
/// redirect from an allowed source to one `IMGPROXY_ALLOWED_SOURCES` does not name, or to
/// an address the address policy refuses, is refused before any connection to it and
/// counted once (`webimage_refused_sources_total`, `webimage_forbidden_addresses_total`).
@Suite("webimage serve: the library's metrics on /metrics", .serialized, .timeLimit(.minutes(2)))
struct ServeLibraryMetricsTests {
    @Test("a redirect hop to a source outside the allowlist is refused and counted",
          .enabled(if: ServeScaledJPEGTests.enabled, "the webimage product is not built"))
    func refusedSource() async throws {
        try await Self.checkRefusedRedirect(
            environment: { ["IMGPROXY_ALLOWED_SOURCES": "http://127.0.0.1:\($0.port)/ok/"] },
            target: { $0.url("/elsewhere/a.png").absoluteString }, counter: "webimage_refused_sources_total")
    }

    /// A redirect to `0.0.0.0` ("this host", which `IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES`
    /// does not allow) is refused by the address check before any connection. Were the
    /// check to fail, the connection would still stay on this machine.
    @Test("a redirect hop to a forbidden address is refused and counted once",
          .enabled(if: ServeScaledJPEGTests.enabled, "the webimage product is not built"))
    func forbiddenAddress() async throws {
        try await Self.checkRefusedRedirect(
            environment: { _ in [:] }, target: { "http://0.0.0.0:\($0.port)/elsewhere/a.png" },
            counter: "webimage_forbidden_addresses_total")
    }

    /// A cached http source its headers say is stale is revalidated before the next render
    /// that needs it; the origin's 304 is counted by kind of source.
    @Test("a stale http source's 304 is counted as an http revalidation, not an S3 one",
          .enabled(if: ServeScaledJPEGTests.enabled, "the webimage product is not built"))
    func httpRevalidation() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        try await TestOrigin.with { origin in
            let png = try Data(contentsOf: Fixtures.corpus.appendingPathComponent("png/image-png/basi3p01_2.png"))
            var stale = TestOrigin.Response(body: Array(png), contentType: "image/png", headers: [("Cache-Control", "max-age=0")])
            stale.etag = "\"v1\""
            origin.route("/stale.png", stale)
            let source = "http://127.0.0.1:\(origin.port)/stale.png"
            try await ServeInstance.with(
                ["--cache-dir", work.appendingPathComponent("cache").path],
                environment: ["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true"],
                log: work.appendingPathComponent("serve.log"), client: .shared
            ) { serve in
                for size in [8, 6] {
                    let answer = try await ServeScaledJPEGTests.get(serve.baseURL, "/unsafe/rs:fit:\(size):\(size)/plain/\(source)@png")
                    #expect(answer.status == 200)
                }
                #expect(origin.requestCount("/stale.png") == 2)
                #expect(origin.requestHeaders("/stale.png").last?["if-none-match"] == "\"v1\"")
                let (http, s3) = (try await Self.counter("webimage_serve_http_not_modified_total", serve.baseURL),
                                  try await Self.counter("webimage_serve_s3_not_modified_total", serve.baseURL))
                #expect(http == 1 && s3 == 0)
            }
        }
    }

    /// Runs `webimage serve` (loopback sources allowed, plus `environment`) beside an origin
    /// whose `/ok/a.png` is an image and `/ok/away.png` redirects to `target`: the image
    /// renders and `counter` reads 0; the redirect fails with no request through the refused
    /// hop (`/elsewhere/a.png`), and `counter` reads 1.
    static func checkRefusedRedirect(
        environment: (TestOrigin) -> [String: String], target: (TestOrigin) -> String, counter name: String
    ) async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        try await TestOrigin.with { origin in
            let png = try Data(contentsOf: Fixtures.corpus.appendingPathComponent("png/image-png/basi3p01_2.png"))
            origin.route("/ok/a.png", .init(body: Array(png), contentType: "image/png"))
            origin.route("/ok/away.png", .redirect(to: target(origin)))
            origin.route("/elsewhere/a.png", .init(body: Array(png), contentType: "image/png"))
            let source = "http://127.0.0.1:\(origin.port)/ok/"
            try await ServeInstance.with(
                [], environment: environment(origin).merging(["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true"]) { $1 },
                log: work.appendingPathComponent("serve.log"), client: .shared
            ) { serve in
                let fine = try await ServeScaledJPEGTests.get(serve.baseURL, "/unsafe/rs:fit:8:8/plain/\(source)a.png@png")
                #expect(fine.status == 200)
                #expect(try await Self.counter(name, serve.baseURL) == 0)
                let away = try await ServeScaledJPEGTests.get(serve.baseURL, "/unsafe/rs:fit:8:8/plain/\(source)away.png@png")
                #expect(away.status != 200, "\(String(decoding: away.body, as: UTF8.self))")
                #expect(origin.requestCount("/ok/away.png") == 1)
                #expect(origin.requestCount("/elsewhere/a.png") == 0, "no request to the refused hop")
                let page = String(decoding: try await ServeScaledJPEGTests.get(serve.baseURL, "/metrics").body, as: UTF8.self)
                #expect(try await Self.counter(name, serve.baseURL) == 1, "\(page.split(separator: "\n").filter { $0.hasPrefix("webimage_") })")
            }
        }
    }

    /// The counter `name` on `/metrics`; 0 before its first increment creates it.
    static func counter(_ name: String, _ base: String) async throws -> Int {
        let page = String(decoding: try await ServeScaledJPEGTests.get(base, "/metrics").body, as: UTF8.self)
        guard let line = page.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }) else { return 0 }
        return try #require(Int(line.split(separator: " ")[1]))
    }
}
