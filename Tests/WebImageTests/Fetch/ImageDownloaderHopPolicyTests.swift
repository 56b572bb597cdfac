import Foundation
import Testing
@testable import WebImage
import WebImageTestOrigin

/// The source allowlist of a ``HopPolicy``, on the first request and on every redirect
/// hop, against loopback origins: a refused hop is never connected to.
@Suite("ImageDownloader: the source allowlist on every hop", .timeLimit(.minutes(1)))
struct ImageDownloaderHopPolicyTests {
    @Test("an allowed source that redirects to a host outside the allowlist: sourceNotAllowed, no request reaches it")
    func redirectOutsideTheAllowlist() async throws {
        try await TestOrigin.with(host: "127.0.0.1") { allowed in
            try await TestOrigin.with(host: "127.0.0.2") { other in
                let (bytes, _) = LoaderTestKit.rawImage()
                other.route("/img.raw", .init(body: bytes))
                allowed.route("/img.raw", .init(body: bytes))
                allowed.route("/away", .redirect(to: other.url("/img.raw").absoluteString))
                allowed.route("/home", .redirect(to: "/img.raw"))
                for sources in [SourceAllowlist(hosts: ["127.0.0.1"]), SourceAllowlist(urlPrefixes: ["http://127.0.0.1:\(allowed.port)/"])] {
                    let downloader = ImageDownloader(config: LoaderTestKit.config { $0.hopPolicy.sources = sources })
                    let recorder = LoadRecorder()
                    recorder.request(downloader, allowed.url("/away"))
                    let error = await recorder.finalError()
                    #expect(error?.code == .sourceNotAllowed)
                    #expect(error?.code.rawValue == 2012)
                    let refusal = try #require(error)
                    #expect(downloader.shouldBlockFailedURL(allowed.url("/away"), error: refusal) == false)
                    // A redirect that stays on the allowed host is followed.
                    #expect(try await downloader.loadImage(with: allowed.url("/home")).data?.count == bytes.count)
                    // A source outside the list is refused before any connection.
                    let direct = LoadRecorder()
                    direct.request(downloader, other.url("/img.raw"))
                    #expect(await direct.finalError()?.code == .sourceNotAllowed)
                    await downloader.shutdown()
                }
                #expect(other.connectionCount == 0)
                #expect(other.totalRequests == 0)
            }
        }
    }

    @Test("host patterns: exact names, .suffix for a domain and its subdomains, address literals")
    func hostPatterns() throws {
        let list = SourceAllowlist(hosts: ["Images.Example", ".cdn.example", "127.0.0.1", "::1"])
        for (text, allowed) in [
            ("http://images.example/a.jpg", true), ("http://x.images.example/a.jpg", false),
            ("https://cdn.example/a", true), ("https://a.b.cdn.example/a", true), ("https://evilcdn.example/a", false),
            ("http://127.0.0.1:8080/a", true), ("http://127.0.0.2/a", false), ("http://[::1]/a", true),
        ] {
            #expect(list.allows(try #require(URL(string: text))) == allowed, "\(text)")
        }
    }

    /// imgproxy's `IMGPROXY_ALLOWED_SOURCES` (docs/configuration/options.mdx): "a whitelist
    /// of source image URL prefixes … Wildcards can be included with `*` to match all
    /// characters except `/`", with the example `s3://,https://*.example.com/,local://`.
    @Test("URL prefixes with imgproxy's wildcard, which never crosses a slash")
    func prefixes() throws {
        let list = SourceAllowlist(urlPrefixes: ["s3://", "https://*.example.com/", "local://", "http://example.org"])
        for (text, allowed) in [
            ("s3://bucket/key.jpg", true), ("local:///a/b.png", true),
            ("https://img.example.com/a.jpg", true), ("https://a.b.example.com/a.jpg", true),
            ("https://example.com/a.jpg", false), ("https://evil.com/.example.com/a.jpg", false),
            ("https://img.example.com.evil.net/a.jpg", false), ("http://img.example.com/a.jpg", false),
            // The documented pitfall: without the slash after the host, longer hosts match too.
            ("http://example.org.evil.net/a.jpg", true),
        ] {
            #expect(list.allows(try #require(URL(string: text))) == allowed, "\(text)")
        }
        #expect(SourceAllowlist().allows(try #require(URL(string: "http://anything/"))))
    }
}
