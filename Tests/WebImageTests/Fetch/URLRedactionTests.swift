import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat

/// Credentials in URLs and headers never reach error messages or log text.
@Suite("Credential redaction", .timeLimit(.minutes(1)))
struct URLRedactionTests {
    @Test("redactedForLog masks user and password and keeps the rest")
    func redaction() throws {
        let url = try #require(URL(string: "http://user:secret@127.0.0.1:8080/a/b.png?q=1#f"))
        #expect(url.redactedForLog == "http://***:***@127.0.0.1:8080/a/b.png?q=1#f")
        let userOnly = try #require(URL(string: "https://token-secret@x.example/a.png"))
        #expect(userOnly.redactedForLog == "https://***@x.example/a.png")
        let plain = try #require(URL(string: "https://x.example/a.png?user=1"))
        #expect(plain.redactedForLog == plain.absoluteString)
        #expect("ftp://u:secret@h/x".redactedURLForLog == "ftp://***:***@h/x")
        #expect("not a url".redactedURLForLog == "not a url")
    }

    @Test("header descriptions hide Authorization and Cookie values")
    func headers() {
        var headers: HTTPHeaderFields = ["Accept": "image/*", "Authorization": "Basic c2VjcmV0", "Cookie": "session=secret"]
        headers.add(name: "set-cookie", value: "id=secret")
        let text = "\(headers)" + String(reflecting: headers) + "\(ImageDownloadRequest(url: URL(fileURLWithPath: "/"), headers: headers))"
        #expect(!text.contains("secret") && !text.contains("c2VjcmV0"), "\(text)")
        #expect(text.contains("Accept: image/*"))
        #expect(headers["Authorization"] == "Basic c2VjcmV0", "the values themselves are kept")
    }

    @Test("failing loads of a URL with a password never show it")
    func failingLoads() async throws {
        let config = LoaderTestKit.config { $0.maxRedirects = 1 }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            origin.route("/loop-a", .redirect(to: "/loop-b"))
            origin.route("/loop-b", .redirect(to: "/loop-a"))
            origin.route("/to-ftp", .redirect(to: "ftp://u:secret@127.0.0.1/x.png"))
            origin.route("/empty.png", .init(body: []))
            let loaders = ImageLoadersManager(loaders: [downloader])
            loaders.allowedSchemes.remove(.http)
            let base = "http://user:secret@127.0.0.1:\(origin.port)"
            let cases: [(any ImageLoaderCallbacks, String)] = [
                (downloader, base + "/missing.png"), (downloader, base + "/loop-a"), (downloader, base + "/to-ftp"),
                (downloader, base + "/empty.png"), (loaders, base + "/missing.png"),
                (downloader, "http://user:secret@127.0.0.1:1/refused.png"),
                (downloader, "ftp://user:secret@127.0.0.1/x.png"),
            ]
            for (loader, text) in cases {
                let url = try #require(URL(string: text))
                let r = LoadRecorder()
                r.request(loader, url)
                let error = try #require(await r.finalError(), "\(text) loaded")
                for shown in ["\(error)", error.message, error.description, String(reflecting: error)] {
                    #expect(!shown.contains("secret"), "\(shown)")
                }
            }
        }
    }
}
