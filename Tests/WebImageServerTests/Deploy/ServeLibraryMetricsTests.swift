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
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        try await TestOrigin.with { origin in
            let png = try Data(contentsOf: Fixtures.corpus.appendingPathComponent("png/image-png/basi3p01_2.png"))
            origin.route("/ok/a.png", .init(body: Array(png), contentType: "image/png"))
            origin.route("/ok/away.png", .redirect(to: origin.url("/elsewhere/a.png").absoluteString))
            origin.route("/elsewhere/a.png", .init(body: Array(png), contentType: "image/png"))
            let allowed = "http://127.0.0.1:\(origin.port)/ok/"
            try await ServeInstance.with(
                [], environment: ["IMGPROXY_ALLOWED_SOURCES": allowed, "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true"],
                log: work.appendingPathComponent("serve.log"), client: .shared
            ) { serve in
                let fine = try await ServeScaledJPEGTests.get(serve.baseURL, "/unsafe/rs:fit:8:8/plain/\(allowed)a.png@png")
                #expect(fine.status == 200)
                #expect(try await Self.refusedSources(serve.baseURL) == 0)
                let away = try await ServeScaledJPEGTests.get(serve.baseURL, "/unsafe/rs:fit:8:8/plain/\(allowed)away.png@png")
                #expect(away.status != 200, "\(String(decoding: away.body, as: UTF8.self))")
                #expect(origin.requestCount("/ok/away.png") == 1)
                #expect(origin.requestCount("/elsewhere/a.png") == 0, "no request to the refused hop")
                let page = String(decoding: try await ServeScaledJPEGTests.get(serve.baseURL, "/metrics").body, as: UTF8.self)
                #expect(try await Self.refusedSources(serve.baseURL) == 1, "\(page.split(separator: "\n").filter { $0.hasPrefix("webimage_") })")
            }
        }
    }

    /// A redirect to `0.0.0.0` ("this host", which `IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES`
    /// does not allow) is refused by the address check before any connection, and counted
    /// once. Were the check to fail, the connection would still stay on this machine.
    @Test("a redirect hop to a forbidden address is refused and counted once",
          .enabled(if: ServeScaledJPEGTests.enabled, "the webimage product is not built"))
    func forbiddenAddress() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        try await TestOrigin.with { origin in
            let png = try Data(contentsOf: Fixtures.corpus.appendingPathComponent("png/image-png/basi3p01_2.png"))
            origin.route("/a.png", .init(body: Array(png), contentType: "image/png"))
            origin.route("/away.png", .redirect(to: "http://0.0.0.0:\(origin.port)/a.png"))
            try await ServeInstance.with(
                [], environment: ["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true"],
                log: work.appendingPathComponent("serve.log"), client: .shared
            ) { serve in
                let source = "http://127.0.0.1:\(origin.port)/"
                #expect(try await ServeScaledJPEGTests.get(serve.baseURL, "/unsafe/rs:fit:8:8/plain/\(source)a.png@png").status == 200)
                #expect(try await Self.counter("webimage_forbidden_addresses_total", serve.baseURL) == 0)
                let away = try await ServeScaledJPEGTests.get(serve.baseURL, "/unsafe/rs:fit:8:8/plain/\(source)away.png@png")
                #expect(away.status != 200, "\(String(decoding: away.body, as: UTF8.self))")
                #expect(origin.requestCount("/away.png") == 1)
                #expect(origin.requestCount("/a.png") == 1, "no request through the refused hop")
                #expect(try await Self.counter("webimage_forbidden_addresses_total", serve.baseURL) == 1)
            }
        }
    }

    /// `webimage_refused_sources_total` on `/metrics`.
    static func refusedSources(_ base: String) async throws -> Int {
        try await counter("webimage_refused_sources_total", base)
    }

    /// The counter `name` on `/metrics`; 0 before its first increment creates it.
    static func counter(_ name: String, _ base: String) async throws -> Int {
        let page = String(decoding: try await ServeScaledJPEGTests.get(base, "/metrics").body, as: UTF8.self)
        guard let line = page.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }) else { return 0 }
        return try #require(Int(line.split(separator: " ")[1]))
    }
}
