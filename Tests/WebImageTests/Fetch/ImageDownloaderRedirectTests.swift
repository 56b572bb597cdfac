import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// Redirects the downloader follows itself: which statuses, relative Locations, what
/// happens to credentials, and that limits, progress, coalescing and cancellation hold
/// across hops.
@Suite("ImageDownloader redirects", .timeLimit(.minutes(2)))
struct ImageDownloaderRedirectTests {
    @Test("301, 302, 303, 307 and 308 are followed; relative Locations resolve; the final URL is reported",
          arguments: [301, 302, 303, 307, 308])
    func statuses(status: Int) async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage()
            origin.route("/a/start", .redirect(to: "../b/next?x=1", status: status))
            origin.route("/b/next", .redirect(to: "/c/final.raw", status: status))
            origin.route("/c/final.raw", .init(body: bytes))
            let response = try await downloader.loadImage(with: origin.url("/a/start"))
            #expect(response.image?.pixels == pixels)
            #expect(response.http?.url == origin.url("/c/final.raw"))
            #expect(response.http?.statusCode == 200)
            #expect(origin.requestLog == ["/a/start", "/b/next", "/c/final.raw"])
        }
    }

    @Test("maxRedirects 0 follows none")
    func zero() async throws {
        try await LoaderTestKit.withOrigin(LoaderTestKit.config { $0.maxRedirects = 0 }) { origin, downloader in
            origin.route("/r", .redirect(to: "/x.raw"))
            origin.route("/x.raw", .init(body: LoaderTestKit.rawImage().data))
            let r = LoadRecorder()
            r.request(downloader, origin.url("/r"))
            #expect(await r.finalError()?.code == .tooManyRedirects)
            #expect(origin.requestCount("/x.raw") == 0)
        }
    }

    @Test("credentials go to the same origin and are dropped when a redirect leaves it")
    func authorizationDropped() async throws {
        let config = LoaderTestKit.config {
            $0.username = "user"
            $0.password = "pw"
        }
        try await TestOrigin.with { other in
            let seen = Mutex<[String: String?]>([:])
            try await LoaderTestKit.withOrigin(config) { origin, downloader in
                let bytes = LoaderTestKit.rawImage().data
                origin.route("/same") { request in
                    seen.withLock { $0["same"] = request.headers["authorization"] }
                    return .redirect(to: "/same-final.raw")
                }
                origin.route("/same-final.raw") { request in
                    seen.withLock { $0["same-final"] = request.headers["authorization"] }
                    return .init(body: bytes)
                }
                // Same host, another port: another origin.
                origin.route("/away", .redirect(to: other.url("/away.raw").absoluteString))
                other.route("/away.raw") { request in
                    seen.withLock { $0["away"] = request.headers["authorization"] }
                    return .init(body: bytes)
                }
                _ = try await downloader.loadImage(with: origin.url("/same"))
                _ = try await downloader.loadImage(with: origin.url("/away"))
                let expected = "Basic " + Data("user:pw".utf8).base64EncodedString()
                let headers = seen.withLock { $0 }
                #expect(headers["same"] == .some(expected))
                #expect(headers["same-final"] == .some(expected))
                #expect(headers["away"] == .some(nil), "Authorization must not follow a redirect to another origin")
                #expect(other.requestCount("/away.raw") == 1)
            }
        }
    }

    @Test("maxResponseBytes and progress apply to the final hop's body")
    func limitsAcrossHops() async throws {
        let config = LoaderTestKit.config { $0.maxResponseBytes = 1000 }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let small = LoaderTestKit.rawImage(width: 8, height: 8).data
            origin.route("/big", .redirect(to: "/big.raw"))
            origin.route("/big.raw", .init(body: [UInt8](repeating: 7, count: 5000), delivery: .chunked(pieces: 5, pause: .milliseconds(5))))
            origin.route("/small", .redirect(to: "/small.raw"))
            origin.route("/small.raw", .init(body: small))
            let big = LoadRecorder(), fine = LoadRecorder()
            big.request(downloader, origin.url("/big"))
            fine.request(downloader, origin.url("/small"))
            #expect(await big.finalError()?.code == .responseTooLarge)
            _ = try await fine.final().get()
            #expect(fine.progressReports.last?.received == small.count)
            #expect(fine.progressReports.last?.expected == small.count)
        }
    }

    @Test("the timeout covers every hop together")
    func timeoutAcrossHops() async throws {
        try await LoaderTestKit.withOrigin(LoaderTestKit.config(timeout: 1)) { origin, downloader in
            for i in 0..<5 {
                var hop = TestOrigin.Response.redirect(to: "/slow\(i + 1)")
                hop.delay = .milliseconds(400)
                origin.route("/slow\(i)", hop)
            }
            origin.route("/slow5", .init(body: LoaderTestKit.rawImage().data))
            let started = ContinuousClock.now
            let r = LoadRecorder()
            r.request(downloader, origin.url("/slow0"))
            #expect(await r.finalError()?.code == .timedOut)
            #expect(ContinuousClock.now - started < .seconds(3))
            #expect(await LoaderTestKit.eventually { downloader.currentDownloadCount == 0 })
        }
    }

    @Test("callers of a redirecting URL share one transfer; cancelling during a hop delivers cancelled once")
    func coalescingAndCancel() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage()
            var first = TestOrigin.Response.redirect(to: "/hop")
            first.delay = .milliseconds(300)
            origin.route("/start", first)
            var hop = TestOrigin.Response.redirect(to: "/end.raw")
            hop.delay = .milliseconds(300)
            origin.route("/hop", hop)
            origin.route("/end.raw", .init(body: bytes))
            let recorders = (0..<10).map { _ in LoadRecorder() }
            var tokens: [ImageLoadToken] = []
            for r in recorders { tokens.append(r.request(downloader, origin.url("/start"))) }
            // Cancel one caller while the transfer waits on the second hop.
            #expect(await LoaderTestKit.eventually { origin.requestCount("/hop") == 1 })
            tokens[0].cancel()
            #expect(await recorders[0].finalError()?.code == .cancelled)
            for r in recorders.dropFirst() { #expect(try await r.final().get().image?.pixels == pixels) }
            #expect(origin.requestCount("/start") == 1 && origin.requestCount("/hop") == 1 && origin.requestCount("/end.raw") == 1)
            try await Task.sleep(for: .milliseconds(50))
            #expect(recorders[0].finalCount == 1 && !recorders[0].sawCallbackAfterFinal)

            // The only caller cancelled mid-hop: the transfer stops, no later hop is requested.
            let lone = LoadRecorder()
            let token = lone.request(downloader, origin.url("/start"))
            #expect(await LoaderTestKit.eventually { origin.requestCount("/start") == 2 })
            token.cancel()
            #expect(await lone.finalError()?.code == .cancelled)
            try await Task.sleep(for: .milliseconds(700))
            #expect(lone.finalCount == 1)
            #expect(origin.requestCount("/hop") == 1 && origin.requestCount("/end.raw") == 1)
            #expect(await LoaderTestKit.eventually { downloader.currentDownloadCount == 0 })
        }
    }
}
