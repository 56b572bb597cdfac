import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// Retries against a real origin that fails on purpose.
@Suite("ImageDownloader: retries", .timeLimit(.minutes(1)))
struct ImageDownloaderRetryTests {
    static func config(_ policy: RetryPolicy) -> DownloaderConfig {
        LoaderTestKit.config { $0.retryPolicy = policy }
    }

    static let quick = RetryPolicy(maxAttempts: 4, baseDelay: 0.01, maxDelay: 0.02, maxRetryAfter: 0.05, totalBudget: 5)

    @Test("503 twice, then the image: three attempts, one result")
    func recoversFrom503() async throws {
        try await LoaderTestKit.withOrigin(Self.config(Self.quick)) { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage()
            origin.route("/flaky.raw", failing: 2, then: .init(body: bytes))
            let response = try await downloader.loadImage(with: origin.url("/flaky.raw"))
            #expect(response.image?.pixels == pixels)
            #expect(response.attempts == 3)
            #expect(origin.requestCount("/flaky.raw") == 3)
        }
    }

    @Test("Retry-After is honoured up to the cap")
    func retryAfter() async throws {
        var policy = Self.quick
        policy.maxRetryAfter = 0.3
        try await LoaderTestKit.withOrigin(Self.config(policy)) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            var busy = TestOrigin.Response.status(503)
            busy.headers = [("Retry-After", "3600")]
            origin.route("/busy.raw", failing: 2, with: busy, then: .init(body: bytes))
            let start = ContinuousClock.now
            let response = try await downloader.loadImage(with: origin.url("/busy.raw"))
            let elapsed = start.duration(to: .now)
            #expect(response.attempts == 3)
            // Two waits of the 0.3 s cap, not an hour and not the 10 ms backoff.
            #expect(elapsed >= .milliseconds(580))
            #expect(elapsed < .seconds(3))
        }
    }

    @Test("retries stop at the attempt count and at the time budget")
    func stopsAtLimits() async throws {
        try await LoaderTestKit.withOrigin(Self.config(Self.quick)) { origin, downloader in
            origin.route("/down.raw", .status(503))
            let recorder = LoadRecorder()
            recorder.request(downloader, origin.url("/down.raw"))
            let error = await recorder.finalError()
            #expect(error?.httpStatusCode == 503)
            #expect(error?.message.contains("after 4 attempts") == true)
            #expect(origin.requestCount("/down.raw") == 4)
        }
        // Each wait is 0.15 s (Retry-After); a 0.4 s budget allows two retries, not 99.
        let budgeted = RetryPolicy(maxAttempts: 100, baseDelay: 0.01, maxRetryAfter: 5, totalBudget: 0.4)
        try await LoaderTestKit.withOrigin(Self.config(budgeted)) { origin, downloader in
            var busy = TestOrigin.Response.status(503)
            busy.headers = [("Retry-After", "0")]
            origin.route("/slowdown.raw") { _ in
                var r = TestOrigin.Response.status(503)
                r.headers = [("Retry-After", "1")]
                return r
            }
            var capped = budgeted
            capped.maxRetryAfter = 0.15
            let recorder = LoadRecorder()
            let start = ContinuousClock.now
            recorder.request(downloader, origin.url("/slowdown.raw"), context: WebImageContext.with { $0.retryPolicy = capped })
            let error = await recorder.finalError()
            #expect(error?.message.contains("budget") == true)
            #expect(origin.requestCount("/slowdown.raw") == 3)
            #expect(start.duration(to: .now) < .seconds(1))
        }
    }

    @Test("permanent failures are not retried: 404, bad data, forbidden address")
    func noRetryForPermanent() async throws {
        var config = Self.config(Self.quick)
        config.hopPolicy.addresses = AddressPolicy(allowedHosts: ["127.0.0.1"])
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            origin.route("/gone.raw", .status(404))
            origin.route("/junk.raw", .init(body: Array("not an image".utf8)))
            origin.route("/hop", .redirect(to: "http://localhost:\(origin.port)/junk.raw"))
            for (path, code) in [("/gone.raw", WebImageError.Code.invalidDownloadStatusCode),
                                 ("/junk.raw", .badImageData), ("/hop", .forbiddenAddress)] {
                let recorder = LoadRecorder()
                recorder.request(downloader, origin.url(path))
                #expect(await recorder.finalError()?.code == code, "\(path)")
                #expect(origin.requestCount(path) == 1, "\(path)")
            }
        }
    }

    @Test("a refused connection is retried; the per-load policy overrides the downloader's")
    func refusedConnection() async throws {
        // Take a free port and close it again: connecting there is refused at once.
        let closed = try await TestOrigin.start()
        let url = closed.url("/nothing.raw")
        await closed.shutdown()
        let downloader = ImageDownloader(config: Self.config(.none))
        let once = LoadRecorder()
        once.request(downloader, url)
        let single = await once.finalError()
        #expect(single?.code == .cannotConnect)
        #expect(single?.message.contains("attempt") == false)
        let retried = LoadRecorder()
        retried.request(downloader, url, context: WebImageContext.with { $0.retryPolicy = Self.quick })
        let error = await retried.finalError()
        #expect(error?.code == .cannotConnect)
        #expect(error?.message.contains("after 4 attempts") == true)
        await downloader.shutdown()
    }

    @Test("coalesced callers share one transfer's retries")
    func coalescedShareRetries() async throws {
        try await LoaderTestKit.withOrigin(Self.config(Self.quick)) { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage()
            var busy = TestOrigin.Response.status(503)
            busy.delay = .milliseconds(100)
            origin.route("/shared.raw", failing: 2, with: busy, then: .init(body: bytes))
            let recorders = (0..<5).map { _ in LoadRecorder() }
            for recorder in recorders { recorder.request(downloader, origin.url("/shared.raw")) }
            for recorder in recorders {
                let response = try await recorder.final().get()
                #expect(response.image?.pixels == pixels)
                #expect(response.attempts == 3)
            }
            #expect(origin.requestCount("/shared.raw") == 3)
        }
    }
}
