import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// Coalescing never hands one caller's response to a caller whose request differs.
@Suite("ImageDownloader: the coalescing key", .timeLimit(.minutes(1)))
struct ImageDownloaderCoalescingKeyTests {
    static func authorized(_ user: String) -> WebImageContext {
        WebImageContext.with {
            $0.downloadRequestModifier = { request in
                var request = request
                request.headers["Authorization"] = "Bearer \(user)"
                return request
            }
        }
    }

    @Test("two callers of one URL with different Authorization each get their own image")
    func perUserImages() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (alice, alicePixels) = LoaderTestKit.rawImage(width: 10, height: 10)
            let (bob, bobPixels) = LoaderTestKit.rawImage(width: 20, height: 5)
            origin.route("/me.raw") { request -> TestOrigin.Response in
                let user = request.headers["authorization"]
                if user == "Bearer alice" { return TestOrigin.Response(body: alice, delay: .milliseconds(200)) }
                if user == "Bearer bob" { return TestOrigin.Response(body: bob, delay: .milliseconds(200)) }
                return .status(401)
            }
            let a = LoadRecorder(), b = LoadRecorder(), a2 = LoadRecorder()
            a.request(downloader, origin.url("/me.raw"), context: Self.authorized("alice"))
            b.request(downloader, origin.url("/me.raw"), context: Self.authorized("bob"))
            a2.request(downloader, origin.url("/me.raw"), context: Self.authorized("alice"))
            #expect(downloader.currentDownloadCount == 2)
            let (ra, rb, ra2) = (await a.final(), await b.final(), await a2.final())
            let pixels = try [ra.get().image?.pixels, rb.get().image?.pixels, ra2.get().image?.pixels]
            #expect(pixels == [alicePixels, bobPixels, alicePixels])
            // alice's two callers shared one transfer; bob got his own.
            #expect(origin.requestCount("/me.raw") == 2)
        }
    }

    @Test("headers, cookies and TLS settings are in the key; header order and name case are not")
    func keyContents() throws {
        let url = try #require(URL(string: "https://img.example/a.png"))
        let base = ImageDownloadRequest(url: url, headers: ["Accept": "image/*", "X-A": "1"])
        let key = { (r: ImageDownloadRequest, o: WebImageOptions) in ImageDownloader.coalescingKey(for: r, options: o) }
        let reordered = ImageDownloadRequest(url: url, headers: ["x-a": "1", "ACCEPT": "image/*"])
        #expect(key(base, []) == key(reordered, []))
        #expect(key(base, [.progressiveLoad, .highPriority]) == key(base, []))
        var cookie = base
        cookie.headers["Cookie"] = "session=1"
        #expect(key(cookie, []) != key(base, []))
        var auth = base
        auth.headers["Authorization"] = "Basic eA=="
        #expect(key(auth, []) != key(base, []))
        #expect(key(base, [.allowInvalidSSLCertificates]) != key(base, []))
        var other = base
        other.url = try #require(URL(string: "https://img.example/b.png"))
        #expect(key(other, []) != key(base, []))
    }
}
