import AsyncHTTPClient
import Foundation
import NIOHTTP1
import Testing
@testable import WebImageServer

/// The server's routes (ProxyRoutes on Hummingbird's Router), over loopback: what
/// ``ProxyServer``'s doc comment and the proxy article say about methods, HEAD and the
/// paths that are never proxy URLs.
@Suite("Routing", .timeLimit(.minutes(1)))
struct RoutingTests {
    static let image = "/unsafe/rs:fit:40:40/plain/example://sunset.jpg"

    @Test("other methods: 405, Allow: GET, HEAD, the JSON error body, on every kind of path")
    func methodNotAllowed() async throws {
        try await ProxyHarness.with(.unsigned) { proxy in
            for method in [HTTPMethod.POST, .PUT, .DELETE, .OPTIONS, .PATCH] {
                for path in ["/health", Self.image, "/nothing-here", "/"] {
                    let answer = try await proxy.client.send(method, path)
                    #expect(answer.status == 405, "\(method) \(path)")
                    #expect(answer.header("Allow") == "GET, HEAD", "\(method) \(path)")
                    #expect(answer.header("Content-Type") == "application/json")
                    #expect(answer.errorCode?.code == 3005 && answer.errorCode?.name == "methodNotAllowed", "\(method) \(path)")
                }
            }
        }
    }

    @Test("HEAD answers as GET without the body: same status, type and length")
    func head() async throws {
        try await ProxyHarness.with(.unsigned) { proxy in
            for path in ["/health", "/gallery", "/examples/tiles.png", Self.image, "/nothing-here"] {
                let get = try await proxy.get(path)
                let head = try await proxy.client.send(.HEAD, path)
                #expect(head.status == get.status, "\(path)")
                #expect(head.header("Content-Type") == get.header("Content-Type"), "\(path)")
                #expect(head.header("Content-Length") == "\(get.body.count)", "\(path)")
                #expect(head.body.isEmpty, "\(path)")
            }
            #expect(try await proxy.get(Self.image).header("Content-Type") == "image/jpeg")
        }
    }

    @Test("ImageProxy.respond, for embedding without the server: the server's status, type, ETag and bytes; header(_:) ignores case")
    func respondDirectly() async throws {
        try await ProxyHarness.with(.unsigned) { proxy in
            let served = try await proxy.get(Self.image)
            let direct = await proxy.server.respond(path: Self.image)
            #expect(direct.status == 200 && served.status == 200)
            #expect(direct.header("content-type") == "image/jpeg" && direct.header("CONTENT-TYPE") == served.header("Content-Type"))
            #expect(direct.header("etag") != nil && direct.header("ETag") == served.header("ETag"))
            #expect(direct.body == served.body)
            #expect(direct.header("X-Not-Sent") == nil)
            let missing = await proxy.server.respond(path: "/unsafe/rs:fit:40:40/plain/example://no-such-example.jpg")
            #expect(missing.status == 404 && missing.header("Content-Type") == "application/json")
        }
    }

    @Test("/, /favicon.ico, unknown and half-matched paths: the proxy's JSON 404; /gallery/ is /gallery")
    func notFound() async throws {
        try await ProxyHarness.with(.unsigned) { proxy in
            for path in ["/", "/favicon.ico", "/nothing-here", "/health/x", "/examples", "/examples/nope.png",
                         "/examples/sunset.jpg/x", "/metrics"] {
                let answer = try await proxy.get(path)
                #expect(answer.status == 404, "\(path)")
                #expect(answer.header("Content-Type") == "application/json", "\(path)")
                #expect(answer.header("Cache-Control") == "no-store", "\(path)")
                #expect(answer.errorCode?.code == 3004 && answer.errorCode?.name == "notFound", "\(path)")
            }
            let gallery = try await proxy.get("/gallery/")
            #expect(gallery.status == 200 && gallery.header("Content-Type") == "text/html; charset=utf-8")
            #expect(gallery.body == (try await proxy.get("/gallery")).body)
        }
    }

    @Test("with a path prefix, image and /info URLs live under it; a proxy URL outside it is 404")
    func pathPrefix() async throws {
        var config = ProxyConfig.unsigned
        config.language.pathPrefix = "/images"
        try await ProxyHarness.with(config) { proxy in
            #expect(try await proxy.get("/images" + Self.image).status == 200)
            let info = try await proxy.get("/images/info/unsafe/plain/example://sunset.jpg")
            #expect(info.status == 200 && info.header("Content-Type") == "application/json")
            let outside = try await proxy.get(Self.image)
            #expect(outside.status == 404 && outside.errorCode?.code == 3004)
            #expect(try await proxy.get("/health").status == 200)
        }
    }

    /// Issue #50 item 4: the base URL was put in front of the gallery's `example://` sources.
    @Test("with IMGPROXY_BASE_URL set, every picture of /gallery loads; other sources still get the base URL")
    func galleryUnderBaseURL() async throws {
        var config = ProxyConfig.unsigned
        config.language.baseURL = "http://images.invalid/"
        try await ProxyHarness.with(config) { proxy in
            let page = String(decoding: try await proxy.get("/gallery").body, as: UTF8.self)
            let sources = page.components(separatedBy: "<img src=\"").dropFirst().compactMap { $0.split(separator: "\"").first }
            #expect(sources.count >= 5)
            for source in sources {
                let answer = try await proxy.get(String(source))
                #expect(answer.status == 200, "\(source): \(answer.status)")
                #expect(answer.header("Content-Type")?.hasPrefix("image/") == true, "\(source)")
            }
            // A relative source is joined to the base URL (images.invalid never resolves).
            let joined = try await proxy.get("/unsafe/rs:fit:40:40/plain/sunset.jpg")
            #expect(joined.status != 200)
        }
    }

    @Test("one debug line per image or /info request (status, path, ms), none for the service pages")
    func requestLog() async throws {
        let logs = LogCapture()
        let proxy = try await ProxyHarness.start(.unsigned, logger: logs.logger(level: .debug))
        _ = try await proxy.get(Self.image)
        _ = try await proxy.get("/unsafe/nothing")
        _ = try await proxy.get("/health")
        await proxy.shutdown()
        let lines = logs.all.filter { $0.message == "image request" }
        #expect(lines.map { $0.metadata["status"] } == ["200", "400"])
        #expect(lines.first?.metadata["path"] == Self.image)
        #expect(lines.allSatisfy { $0.level == .debug && Double($0.metadata["ms"] ?? "") != nil })
    }
}
