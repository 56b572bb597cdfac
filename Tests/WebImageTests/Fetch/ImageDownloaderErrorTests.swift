import Foundation
import NIOCore
import NIOPosix
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

@Suite("ImageDownloader errors", .timeLimit(.minutes(1)))
struct ImageDownloaderErrorTests {
    /// Loads `path` from a fresh origin serving `response` and returns the error code.
    private func code(
        _ response: TestOrigin.Response, options: WebImageOptions = [],
        config: DownloaderConfig = LoaderTestKit.config()
    ) async throws -> WebImageError? {
        var error: WebImageError?
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            origin.route("/r", response)
            let r = LoadRecorder()
            r.request(downloader, origin.url("/r"), options: options)
            error = await r.finalError()
        }
        return error
    }

    @Test("404 and 500 fail with invalidDownloadStatusCode carrying the status", arguments: [404, 500])
    func badStatus(_ status: Int) async throws {
        let error = try await code(.status(status))
        #expect(error?.code == .invalidDownloadStatusCode)
        #expect(error?.httpStatusCode == status)
    }

    @Test("a content type outside acceptableContentTypes fails with invalidDownloadContentType")
    func contentType() async throws {
        let (bytes, _) = LoaderTestKit.rawImage()
        let config = LoaderTestKit.config { $0.acceptableContentTypes = ["image/*"] }
        #expect(try await code(.init(body: bytes, contentType: "text/html"), config: config)?.code == .invalidDownloadContentType)
        #expect(try await code(.init(body: bytes), config: config)?.code == .invalidDownloadContentType)
        #expect(try await code(.init(body: bytes, contentType: "image/x-raw; q=1"), config: config) == nil)
    }

    @Test("a body over maxResponseBytes fails with responseTooLarge, with and without Content-Length")
    func tooLarge() async throws {
        let (bytes, _) = LoaderTestKit.rawImage(width: 64, height: 64)
        let config = LoaderTestKit.config { $0.maxResponseBytes = 4096 }
        #expect(try await code(.init(body: bytes), config: config)?.code == .responseTooLarge)
        let chunked = TestOrigin.Response(body: bytes, delivery: .chunked(pieces: 8, pause: .milliseconds(5)))
        #expect(try await code(chunked, config: config)?.code == .responseTooLarge)
    }

    @Test("a body shorter than its Content-Length fails with invalidDownloadResponse")
    func shortBody() async throws {
        let (bytes, _) = LoaderTestKit.rawImage()
        var response = TestOrigin.Response(body: bytes)
        response.declaredLength = bytes.count + 1000
        #expect(try await code(response)?.code == .invalidDownloadResponse)
    }

    @Test("a connection closed mid-body fails with invalidDownloadResponse")
    func closedMidBody() async throws {
        let (bytes, _) = LoaderTestKit.rawImage()
        #expect(try await code(.init(body: bytes, delivery: .closeAfter(bytes: 100)))?.code == .invalidDownloadResponse)
        #expect(try await code(.init(body: bytes, delivery: .closeAfter(bytes: 0)))?.code == .invalidDownloadResponse)
    }

    @Test("a transfer slower than downloadTimeout fails with timedOut")
    func timeout() async throws {
        let (bytes, _) = LoaderTestKit.rawImage()
        // The whole drip would take about 96 s; the load must end long before that.
        let slow = TestOrigin.Response(body: bytes, delivery: .drip(bytes: 64, every: .milliseconds(500)))
        let started = ContinuousClock.now
        #expect(try await code(slow, config: LoaderTestKit.config(timeout: 0.5))?.code == .timedOut)
        #expect(ContinuousClock.now - started < .seconds(45))
        let silent = TestOrigin.Response(body: bytes, delay: .seconds(10))
        #expect(try await code(silent, config: LoaderTestKit.config(timeout: 0.5))?.code == .timedOut)
    }

    @Test("a refused port fails with cannotConnect")
    func refused() async throws {
        // Bind a port, then close it so nothing listens there.
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(channel.localAddress?.port)
        try await channel.close()
        let downloader = ImageDownloader(config: LoaderTestKit.config(timeout: 5))
        let r = LoadRecorder()
        r.request(downloader, URL(string: "http://127.0.0.1:\(port)/x.raw"))
        let error = await r.finalError()
        #expect(error?.code == .cannotConnect)
        if let error { #expect(!downloader.shouldBlockFailedURL(URL(fileURLWithPath: "/"), error: error)) }
        await downloader.shutdown()
    }

    @Test("an unresolvable host fails with cannotFindHost")
    func unknownHost() async throws {
        let downloader = ImageDownloader(config: LoaderTestKit.config(timeout: 10))
        let r = LoadRecorder()
        r.request(downloader, URL(string: "http://no-such-host.invalid/x.raw"))
        #expect(await r.finalError()?.code == .cannotFindHost)
        await downloader.shutdown()
    }

    @Test("a redirect loop and too many redirects fail with tooManyRedirects")
    func redirects() async throws {
        let config = LoaderTestKit.config { $0.maxRedirects = 3 }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage()
            origin.route("/loop-a", .redirect(to: "/loop-b"))
            origin.route("/loop-b", .redirect(to: "/loop-a"))
            for i in 0..<6 { origin.route("/hop\(i)", .redirect(to: "/hop\(i + 1)")) }
            origin.route("/hop6", .init(body: bytes))
            origin.route("/two", .redirect(to: "/hop4", status: 301))
            origin.route("/ftp", .redirect(to: "ftp://127.0.0.1/x.raw"))

            let loop = LoadRecorder(), far = LoadRecorder(), near = LoadRecorder(), ftp = LoadRecorder()
            loop.request(downloader, origin.url("/loop-a"))
            far.request(downloader, origin.url("/hop0"))
            near.request(downloader, origin.url("/two"))
            ftp.request(downloader, origin.url("/ftp"))
            #expect(await loop.finalError()?.code == .tooManyRedirects)
            #expect(await far.finalError()?.code == .tooManyRedirects)
            #expect(await ftp.finalError()?.code == .tooManyRedirects)
            let response = try await near.final().get()
            #expect(response.image?.pixels == pixels)
            #expect(response.http?.url == origin.url("/hop6"))
        }
    }

    @Test("an empty body fails with badImageData; undecodable bytes too")
    func badData() async throws {
        #expect(try await code(.init(body: []))?.code == .badImageData)
        #expect(try await code(.init(body: Array("not an image".utf8)))?.code == .badImageData)
    }

    @Test("a URL no downloader handles fails with invalidURL")
    func invalidURL() async throws {
        let downloader = ImageDownloader(config: LoaderTestKit.config())
        for url in [nil, URL(string: "ftp://example.com/a.png"), URL(string: "http://")] {
            let r = LoadRecorder()
            r.request(downloader, url)
            #expect(await r.finalError()?.code == .invalidURL)
        }
        await downloader.shutdown()
    }

    @Test("shouldBlockFailedURL: transient failures are not blocked, the rest are")
    func blockPolicy() {
        let downloader = ImageDownloader.shared
        let url = URL(fileURLWithPath: "/")
        for code in [WebImageError.Code.cancelled, .timedOut, .cannotConnect, .cannotFindHost, .connectionLost,
                     .invalidDownloadOperation] {
            #expect(!downloader.shouldBlockFailedURL(url, error: WebImageError(code, "")))
        }
        for code in [WebImageError.Code.invalidDownloadStatusCode, .badImageData, .invalidURL, .responseTooLarge,
                     .tooManyRedirects, .invalidDownloadResponse, .invalidDownloadContentType] {
            #expect(downloader.shouldBlockFailedURL(url, error: WebImageError(code, "")))
        }
    }
}
