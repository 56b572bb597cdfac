import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin
@testable import WebImageServer

@Suite("Formats, validators and cache headers", .timeLimit(.minutes(1)))
struct NegotiationTests {
    @Test func theFormatFollowsTheURLElseAccept() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/a.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
            try await ProxyHarness.with(.unsigned) { proxy in
                let source = origin.url("/a.jpg")
                let webp = try await proxy.get(ProxyHarness.unsafePath(source, "rs:fit:200:200"), headers: [("Accept", "image/webp,image/*")])
                #expect(webp.header("Content-Type") == "image/webp")
                #expect(webp.header("Vary") == "Accept")
                #expect(ImageFormat.detect(webp.body) == .webp)

                let plain = try await proxy.get(ProxyHarness.unsafePath(source, "rs:fit:200:200"), headers: [("Accept", "image/*")])
                #expect(plain.header("Content-Type") == "image/jpeg")
                #expect(plain.header("Vary") == "Accept")
                #expect(plain.header("ETag") != webp.header("ETag"))

                for (options, ext, format) in [("rs:fit:200:200/f:png", nil, ImageFormat.png), ("rs:fit:200:200", "gif", .gif)] {
                    let named = try await proxy.get(ProxyHarness.unsafePath(source, options, ext: ext), headers: [("Accept", "image/webp")])
                    #expect(ImageFormat.detect(named.body) == format)
                    #expect(named.header("Content-Type") == format.mimeType)
                    #expect(named.header("Vary") == nil)
                    // Unsigned URLs may be re-pointed by the server's owner: not immutable.
                    #expect(named.header("Cache-Control") == "max-age=31536000, public")
                }
            }
        }
    }

    @Test func etagsAnswerConditionalRequests() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            var response = TestOrigin.Response(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg")
            response.headers = [("Last-Modified", "Tue, 03 Mar 2020 10:20:30 GMT")]
            response.etag = "\"source-v1\""
            origin.route("/a.jpg", response)
            var config = ProxyConfig.unsigned
            config.maxAge = 600
            try await ProxyHarness.with(config) { proxy in
                let path = ProxyHarness.unsafePath(origin.url("/a.jpg"), "rs:fill:64:64/q:50", ext: "jpg")
                let first = try await proxy.get(path)
                #expect(first.status == 200)
                #expect(first.header("Cache-Control") == "max-age=600, public")
                #expect(first.header("Last-Modified") == "Tue, 03 Mar 2020 10:20:30 GMT")
                let etag = try #require(first.header("ETag"))
                let again = try await proxy.get(path, headers: [("If-None-Match", etag)])
                #expect(again.status == 304)
                #expect(again.body.isEmpty)
                #expect(again.header("ETag") == etag)
                let other = try await proxy.get(path, headers: [("If-None-Match", "\"something-else\"")])
                #expect(other.status == 200)
                #expect(other.body == first.body)
                // Another output of the same source has another ETag.
                let resized = try await proxy.get(ProxyHarness.unsafePath(origin.url("/a.jpg"), "rs:fill:65:64/q:50", ext: "jpg"))
                #expect(resized.header("ETag") != etag)
            }
        }
    }
}
