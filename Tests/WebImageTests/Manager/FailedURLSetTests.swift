import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// A clock tests move by hand.
final class ManualClock: Sendable {
    private let seconds = Mutex(0.0)
    var now: @Sendable () -> Double { { self.seconds.withLock { $0 } } }
    func advance(_ by: Double) { seconds.withLock { $0 += by } }
}

@Suite("FailedURLSet: a block list that forgets", .timeLimit(.minutes(1)))
struct FailedURLSetTests {
    static let notFound = WebImageError(.invalidDownloadStatusCode, "HTTP 404", httpStatusCode: 404)

    static func url(_ i: Int) -> URL { URL(string: "https://img.example/\(i).png")! }

    @Test("entries keep their error and expire after the TTL")
    func expiry() {
        let clock = ManualClock()
        let set = FailedURLSet(policy: FailedURLPolicy(timeToLive: 60), now: clock.now)
        set.insert(Self.url(1), error: Self.notFound)
        #expect(set.entry(for: Self.url(1))?.httpStatusCode == 404)
        clock.advance(59)
        #expect(set.contains(Self.url(1)))
        clock.advance(2)
        #expect(!set.contains(Self.url(1)))
        #expect(set.count == 0)
    }

    @Test("an entry keeps the error's code, message and status, not the response a refused status carries")
    func keepsNoResponse() throws {
        let set = FailedURLSet(policy: FailedURLPolicy(), now: ManualClock().now)
        let response = HTTPResponseInfo(statusCode: 404, headers: ["X-Padding": String(repeating: "x", count: 4096)], url: Self.url(1))
        set.insert(Self.url(1), error: WebImageError(.invalidDownloadStatusCode, "HTTP 404", httpStatusCode: 404,
                                                     underlying: ResponseCause(http: response)))
        let kept = try #require(set.entry(for: Self.url(1)))
        #expect(kept.code == .invalidDownloadStatusCode && kept.message == "HTTP 404" && kept.httpStatusCode == 404)
        #expect(kept.underlyingError == nil)
        // Any other cause stays.
        set.insert(Self.url(2), error: WebImageError(.timedOut, "slow", underlying: Self.notFound))
        #expect(set.entry(for: Self.url(2))?.underlyingError is WebImageError)
    }

    @Test("the set is bounded: the least recently used entry goes first")
    func bounded() {
        let set = FailedURLSet(policy: FailedURLPolicy(capacity: 3), now: ManualClock().now)
        for i in 1...3 { set.insert(Self.url(i), error: Self.notFound) }
        #expect(set.contains(Self.url(1)))          // 1 is now the most recently used
        set.insert(Self.url(4), error: Self.notFound)
        #expect(set.count == 3)
        #expect(!set.contains(Self.url(2)))
        #expect(set.contains(Self.url(1)) && set.contains(Self.url(3)) && set.contains(Self.url(4)))
        for i in 5..<5000 { set.insert(Self.url(i), error: Self.notFound) }
        #expect(set.count == 3)
    }

    @Test("the default policy: one hour, 10,000 URLs; values are clamped")
    func policy() {
        #expect(FailedURLPolicy().timeToLive == 3600)
        #expect(FailedURLPolicy().capacity == 10_000)
        #expect(FailedURLPolicy(timeToLive: .nan, capacity: -1) == FailedURLPolicy(timeToLive: 0, capacity: 0))
        #expect(FailedURLPolicy(timeToLive: .infinity, capacity: .max).timeToLive == 2_592_000)
        #expect(FailedURLPolicy(timeToLive: .infinity, capacity: .max).capacity == 10_000_000)
        let disabled = FailedURLSet(policy: FailedURLPolicy(timeToLive: 0))
        disabled.insert(Self.url(1), error: Self.notFound)
        #expect(!disabled.contains(Self.url(1)))
    }
}

@Suite("ImageManager: the block list forgets, and never holds transient errors", .timeLimit(.minutes(1)))
struct ImageManagerBlockListTests {
    @Test("a 404 is blocked for the TTL, then the URL is tried again and recovers")
    func recoversAfterTTL() async throws {
        try await ManagerFixture.with { f in
            let clock = ManualClock()
            let manager = ImageManager(
                cache: f.cache, loader: f.downloader,
                failedURLs: FailedURLSet(policy: FailedURLPolicy(timeToLive: 600), now: clock.now))
            let url = f.origin.url("/deploy.png")
            #expect(try await Self.code(manager, url) == .invalidDownloadStatusCode)
            let blocked = try await Self.error(manager, url)
            #expect(blocked?.code == .blackListed)
            #expect(blocked?.message.contains("HTTP 404") == true)
            #expect(f.origin.requestCount("/deploy.png") == 1)

            f.serve("/deploy.png", ManagerTestKit.png())    // the deploy finished
            clock.advance(601)
            #expect(try await Self.code(manager, url) == nil)
            #expect(f.origin.requestCount("/deploy.png") == 2)
        }
    }

    @Test("transient failures (503, 429, timeouts, refused) never enter, even when the delegate says block")
    func transientNeverBlocked() async throws {
        try await ManagerFixture.with { f in
            let delegate = BlockingPolicy(block: true)
            f.manager.delegate = delegate
            for status in [503, 429, 502, 408] {
                f.origin.route("/s\(status).png", .status(status))
                let url = f.origin.url("/s\(status).png")
                _ = await f.loadAll(url)
                #expect(!f.manager.isFailedURL(url), "\(status)")
            }
            let closed = try await TestOriginPort.closed()
            _ = await f.loadAll(closed)
            #expect(!f.manager.isFailedURL(closed))
            withExtendedLifetime(delegate) {}
        }
    }

    static func error(_ manager: ImageManager, _ url: URL) async throws -> WebImageError? {
        do throws(WebImageError) {
            _ = try await manager.loadImage(with: url)
            return nil
        } catch {
            return error
        }
    }

    static func code(_ manager: ImageManager, _ url: URL) async throws -> WebImageError.Code? {
        try await error(manager, url)?.code
    }
}

/// A loopback URL nothing listens on (a port that was just closed).
enum TestOriginPort {
    static func closed() async throws -> URL {
        let origin = try await TestOrigin.start()
        let url = origin.url("/gone.png")
        await origin.shutdown()
        return url
    }
}
