import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin

/// ``HTTPCachePolicy/respectHeaders`` against a real origin: its request counters show
/// which loads went to the network.
@Suite("ImageManager: HTTP freshness", .timeLimit(.minutes(1)))
struct ImageManagerFreshnessTests {
    static let store: WebImageOptions = [.waitStoreCache]

    /// A fixture whose manager respects caching headers; `path` serves a PNG with `headers`.
    static func fixture(_ path: String, _ headers: [(String, String)], etag: String? = "\"v1\"") async throws
        -> (ManagerFixture, URL) {
        let f = try await ManagerFixture()
        f.manager.httpCachePolicy = .respectHeaders
        let url = f.serve(path, ManagerTestKit.png(), etag: etag, headers: headers)
        return (f, url)
    }

    /// Serves a PNG at `path` with ETag "v1" and `cacheControl`, and a 304 that says fresh
    /// for an hour to a request that sends that ETag back; returns its URL.
    static func serveThen304(_ f: ManagerFixture, _ path: String, cacheControl: String) -> URL {
        var first = TestOrigin.Response(body: Array(ManagerTestKit.png()), contentType: "image/png",
                                        headers: [("Cache-Control", cacheControl)])
        first.etag = "\"v1\""
        let body = first
        let notModified = TestOrigin.Response(status: 304, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=3600")])
        f.origin.route(path) { request in request.headers["if-none-match"] == "\"v1\"" ? notModified : body }
        return f.origin.url(path)
    }

    static func dropMemory(_ f: ManagerFixture) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            f.cache.clear(cacheType: .memory) { c.resume() }
        }
    }

    @Test("a fresh entry is served with no request, from memory and from disk")
    func freshNoRequest() async throws {
        let (f, url) = try await Self.fixture("/fresh.png", [("Cache-Control", "max-age=3600")])
        #expect(await f.loadAll(url, options: Self.store).first?.cacheType == ImageCacheType.none)
        #expect(await f.loadAll(url).map(\.cacheType) == [.memory])
        await Self.dropMemory(f)
        #expect(await f.loadAll(url).map(\.cacheType) == [.disk])
        #expect(f.origin.requestCount("/fresh.png") == 1)
        await f.shutdown()
    }

    @Test("a stale entry is revalidated: 304 delivers the cached image once, no second body")
    func staleRevalidates() async throws {
        for headers in [[("Cache-Control", "max-age=0")], [("Cache-Control", "max-age=10"), ("Age", "20")],
                        [("Expires", "Thu, 01 Jan 1970 00:00:00 GMT")], [("Cache-Control", "no-cache, max-age=3600")]] {
            let (f, url) = try await Self.fixture("/stale.png", headers)
            _ = await f.loadAll(url, options: Self.store)
            let sentBefore = f.origin.bytesSent
            let second = await f.loadAll(url)
            #expect(second.count == 1, "\(headers)")
            #expect(second.first?.image != nil)
            #expect(second.first?.cacheType == .memory)
            #expect(f.origin.requestCount("/stale.png") == 2, "\(headers)")
            #expect(f.origin.requestHeaders("/stale.png").last?["if-none-match"] == "\"v1\"")
            #expect(f.origin.bytesSent == sentBefore)
            await f.shutdown()
        }
    }

    @Test("a 304 refreshes the stored freshness: the next load makes no request")
    func notModifiedRefreshes() async throws {
        try await ManagerFixture.with { f in
            f.manager.httpCachePolicy = .respectHeaders
            // The first answer is stale at once; the 304 says fresh for an hour.
            let url = Self.serveThen304(f, "/refresh.png", cacheControl: "max-age=0")
            _ = await f.loadAll(url, options: Self.store)
            _ = await f.loadAll(url)
            _ = await f.loadAll(url)
            #expect(f.origin.requestCount("/refresh.png") == 2)
        }
    }

    @Test("stale-while-revalidate serves the stale image at once and revalidates in the background")
    func staleWhileRevalidate() async throws {
        let (f, url) = try await Self.fixture("/swr.png", [("Cache-Control", "max-age=0, stale-while-revalidate=600")])
        _ = await f.loadAll(url, options: Self.store)
        let second = await f.loadAll(url)
        #expect(second.map(\.cacheType) == [.memory])
        #expect(await ManagerTestKit.eventually { f.origin.requestCount("/swr.png") == 2 })
        await f.shutdown()
    }

    /// Waits until the manager's stage A ran `runs` revalidations and none is left.
    static func revalidated(_ f: ManagerFixture, runs: Int) async -> Bool {
        await ManagerTestKit.eventually {
            f.manager.pipeline.originals.startedCount == runs && f.manager.pipeline.originals.runningCount == 0
        }
    }

    @Test("new bytes from a background revalidation replace the original and supersede the image decoded from the old ones")
    func backgroundRevalidationReplaces() async throws {
        let (f, url) = try await Self.fixture("/swr-new.png", [("Cache-Control", "max-age=0, stale-while-revalidate=600")])
        _ = await f.loadAll(url, options: Self.store)
        let newer = ManagerTestKit.png(width: 40, height: 30, seed: 9)
        f.serve("/swr-new.png", newer, etag: "\"v2\"", headers: [("Cache-Control", "max-age=3600")])
        let stale = await f.loadAll(url)
        #expect(stale.map(\.cacheType) == [.memory])
        #expect(stale.first?.image?.width == 32, "the stale image is answered at once")
        #expect(await Self.revalidated(f, runs: 1))
        #expect(f.origin.requestHeaders("/swr-new.png").last?["if-none-match"] == "\"v1\"")
        #expect(await f.cache.diskImageData(forKey: url.absoluteString) == newer)
        #expect(f.cache.imageFromMemory(forKey: url.absoluteString) == nil, "the old decoded image is gone")
        let next = await f.loadAll(url)
        #expect(next.map(\.cacheType) == [.disk])
        #expect(next.first?.image?.width == 40)
        // The new copy's freshness came with it: no request.
        #expect(f.origin.requestCount("/swr-new.png") == 2)
        await f.shutdown()
    }

    @Test("a 304 to a background revalidation renews the stored freshness and keeps the image")
    func backgroundNotModified() async throws {
        try await ManagerFixture.with { f in
            f.manager.httpCachePolicy = .respectHeaders
            let url = Self.serveThen304(f, "/swr-304.png", cacheControl: "max-age=0, stale-while-revalidate=600")
            let bytes = await f.loadAll(url, options: Self.store).first?.data
            _ = await f.loadAll(url)
            #expect(await Self.revalidated(f, runs: 1))
            #expect(f.cache.imageFromMemory(forKey: url.absoluteString) != nil)
            #expect(await f.cache.diskImageData(forKey: url.absoluteString) == bytes)
            #expect(await f.loadAll(url).map(\.cacheType) == [.memory])
            #expect(f.origin.requestCount("/swr-304.png") == 2)
        }
    }

    @Test("new bytes from a background revalidation of a thumbnail drop the thumbnail; the next load makes it from them")
    func backgroundRevalidationOfThumbnail() async throws {
        let (f, url) = try await Self.fixture("/swr-thumb.png", [("Cache-Control", "max-age=0, stale-while-revalidate=600")])
        var context = WebImageContext()
        context.thumbnailPixelSize = PixelSize(width: 8, height: 8)
        let key = try #require(f.manager.cacheKey(for: url, context: context))
        #expect(await f.loadAll(url, options: Self.store, context: context).first?.image?.height == 6)
        // Portrait now: its thumbnail is 6×8 where the old one was 8×6.
        f.serve("/swr-thumb.png", ManagerTestKit.png(width: 24, height: 32, seed: 3), etag: "\"v2\"",
                headers: [("Cache-Control", "max-age=3600")])
        #expect(await f.loadAll(url, context: context).first?.image?.height == 6)
        #expect(await Self.revalidated(f, runs: 1))
        #expect(await f.cache.containsImage(forKey: key, cacheType: .all) == .none)
        let next = await f.loadAll(url, context: context)
        #expect(next.first?.image?.height == 8)
        #expect(next.first?.cacheType == .disk, "made from the original's new disk entry")
        #expect(f.origin.requestCount("/swr-thumb.png") == 2)
        await f.shutdown()
    }

    @Test("background revalidations of one original share one fetch")
    func backgroundRevalidationsShare() async throws {
        let (f, url) = try await Self.fixture("/swr-shared.png", [("Cache-Control", "max-age=0, stale-while-revalidate=600")])
        _ = await f.loadAll(url, options: Self.store)
        f.serve("/swr-shared.png", ManagerTestKit.png(), etag: "\"v1\"",
                headers: [("Cache-Control", "max-age=0, stale-while-revalidate=600")], delay: .milliseconds(500))
        _ = await f.loadAll(url)
        _ = await f.loadAll(url)
        #expect(await Self.revalidated(f, runs: 1))
        #expect(f.origin.requestCount("/swr-shared.png") == 2)
        await f.shutdown()
    }

    @Test("cancelAll reaches a background revalidation")
    func cancelAllStopsBackgroundRevalidation() async throws {
        let (f, url) = try await Self.fixture("/swr-slow.png", [("Cache-Control", "max-age=0, stale-while-revalidate=600")])
        _ = await f.loadAll(url, options: Self.store)
        // The revalidation's answer takes far longer than the test.
        f.serve("/swr-slow.png", ManagerTestKit.png(), etag: "\"v1\"", delay: .seconds(30))
        #expect(await f.loadAll(url).map(\.cacheType) == [.memory])
        #expect(await ManagerTestKit.eventually { f.origin.requestCount("/swr-slow.png") == 2 })
        #expect(f.downloader.currentDownloadCount == 1)
        #expect(!f.manager.isRunning, "a background revalidation is no running load")
        f.manager.cancelAll()
        #expect(await ManagerTestKit.eventually { f.downloader.currentDownloadCount == 0 })
        await f.shutdown()
    }

    @Test("stale-if-error serves the stale image when the origin fails (a 5xx, not a 4xx: RFC 5861 §4); must-revalidate does not")
    func staleIfError() async throws {
        let (f, url) = try await Self.fixture("/sie.png", [("Cache-Control", "max-age=0, stale-if-error=600")])
        _ = await f.loadAll(url, options: Self.store)
        f.origin.route("/sie.png", .status(503))
        let served = await f.loadAll(url)
        #expect(served.map(\.cacheType) == [.memory])
        #expect(served.first?.error == nil)
        #expect(f.origin.requestCount("/sie.png") == 2)
        // The source says the image is gone: an answer, not a failure a stale copy stands in for.
        f.origin.route("/sie.png", .status(404))
        #expect(await f.loadAll(url).map(\.error?.httpStatusCode) == [404])
        #expect(f.origin.requestCount("/sie.png") == 3)
        await f.shutdown()

        let (g, strict) = try await Self.fixture("/strict.png", [("Cache-Control", "max-age=0, must-revalidate, stale-if-error=600")])
        _ = await g.loadAll(strict, options: Self.store)
        g.origin.route("/strict.png", .status(503))
        #expect(await g.loadAll(strict).map(\.error?.httpStatusCode) == [503])
        await g.shutdown()
    }

    @Test("no-store is never written to disk, even without the opt-in")
    func noStore() async throws {
        for policy in [HTTPCachePolicy.ignoreHeaders, .respectHeaders] {
            try await ManagerFixture.with { f in
                f.manager.httpCachePolicy = policy
                let url = f.serve("/private.png", ManagerTestKit.png(), headers: [("Cache-Control", "private, no-store")])
                #expect(await f.loadAll(url, options: Self.store).first?.image != nil)
                await f.cache.flush()
                #expect(await f.cache.diskImageData(forKey: url.absoluteString) == nil)
                let thumb = f.serve("/private-thumb.png", ManagerTestKit.png(), headers: [("Cache-Control", "no-store")])
                var context = WebImageContext()
                context.thumbnailPixelSize = PixelSize(width: 8, height: 8)
                _ = await f.loadAll(thumb, options: Self.store, context: context)
                await f.cache.flush()
                #expect(await f.cache.diskImageData(forKey: thumb.absoluteString) == nil)
                #expect(await f.cache.diskImageData(forKey: f.manager.cacheKey(for: thumb, context: context) ?? "") == nil)
            }
        }
    }

    @Test("without the opt-in, headers are stored but not obeyed (SDWebImage's behaviour)")
    func ignoredByDefault() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/old.png", ManagerTestKit.png(), headers: [("Cache-Control", "max-age=0")])
            _ = await f.loadAll(url, options: Self.store)
            _ = await f.loadAll(url)
            #expect(f.origin.requestCount("/old.png") == 1)
            // A per-load context can opt in.
            var context = WebImageContext()
            context.httpCachePolicy = .respectHeaders
            _ = await f.loadAll(url, context: context)
            #expect(f.origin.requestCount("/old.png") == 2)
        }
    }
}

@Suite("HTTPFreshness: values", .timeLimit(.minutes(1)))
struct HTTPFreshnessTests {
    static let t0 = Date(timeIntervalSince1970: 1_000_000)

    static func freshness(_ headers: HTTPHeaderFields) -> HTTPFreshness? { HTTPFreshness(headers: headers, receivedAt: t0) }

    @Test("max-age, Expires − Date, Age")
    func lifetimes() throws {
        #expect(Self.freshness(["Cache-Control": "public, max-age=600"])?.lifetime == 600)
        #expect(Self.freshness(["Cache-Control": "max-age=600", "Age": "100"])?.lifetime == 500)
        #expect(Self.freshness(["Cache-Control": "max-age=60", "Age": "100"])?.lifetime == 0)
        let expires = ["Expires": "Sun, 06 Nov 1994 09:49:37 GMT", "Date": "Sun, 06 Nov 1994 08:49:37 GMT"]
        #expect(Self.freshness(HTTPHeaderFields(dictionaryLiteral: expires.first!, expires.dropFirst().first!))?.lifetime == 3600)
        #expect(Self.freshness(["Expires": "0"])?.lifetime == 0)
        #expect(Self.freshness(["Content-Type": "image/png"]) == nil)
        #expect(Self.freshness(["Cache-Control": "max-age=\"30\""])?.lifetime == 30)
    }

    @Test("states over time")
    func states() throws {
        let f = try #require(Self.freshness(["Cache-Control": "max-age=100, stale-while-revalidate=50, stale-if-error=500"]))
        #expect(f.state(at: Self.t0.addingTimeInterval(99)) == .fresh)
        #expect(f.state(at: Self.t0.addingTimeInterval(120)) == .staleWhileRevalidate)
        #expect(f.state(at: Self.t0.addingTimeInterval(200)) == .stale(staleIfErrorAllowed: true))
        #expect(f.state(at: Self.t0.addingTimeInterval(700)) == .stale(staleIfErrorAllowed: false))
        let strict = try #require(Self.freshness(["Cache-Control": "max-age=100, must-revalidate, stale-if-error=500"]))
        #expect(strict.state(at: Self.t0.addingTimeInterval(200)) == .stale(staleIfErrorAllowed: false))
        let noCache = try #require(Self.freshness(["Cache-Control": "no-cache, max-age=100"]))
        #expect(noCache.state(at: Self.t0) == .stale(staleIfErrorAllowed: false))
        #expect(try #require(Self.freshness(["Cache-Control": "no-store"])).noStore)
        #expect(try #require(Self.freshness(["Cache-Control": "public"])).state(at: .distantFuture) == .fresh)
    }

    @Test("s-maxage is a shared cache's (RFC 9111 §5.2.2.10): it wins over max-age and Expires there, and forbids serving stale; a private cache ignores it")
    func sharedMaxAge() throws {
        let headers: HTTPHeaderFields = ["Cache-Control": "max-age=0, s-maxage=600, stale-if-error=900"]
        let shared = try #require(HTTPFreshness(headers: headers, receivedAt: Self.t0, shared: true))
        #expect(shared.lifetime == 600)
        #expect(shared.state(at: Self.t0.addingTimeInterval(300)) == .fresh)
        #expect(shared.state(at: Self.t0.addingTimeInterval(700)) == .stale(staleIfErrorAllowed: false))
        let own = try #require(Self.freshness(headers))
        #expect(own.lifetime == 0)
        #expect(own.state(at: Self.t0.addingTimeInterval(300)) == .stale(staleIfErrorAllowed: true))
        let expires: HTTPHeaderFields = ["Expires": "Thu, 01 Jan 1970 00:00:00 GMT", "Cache-Control": "s-maxage=60"]
        #expect(HTTPFreshness(headers: expires, receivedAt: Self.t0, shared: true)?.lifetime == 60)
        #expect(Self.freshness(expires)?.lifetime == 0)
    }

    @Test("freshness survives the round trip through the disk entry's extended data")
    func roundTrip() throws {
        let f = try #require(Self.freshness(["Cache-Control": "max-age=100, no-cache, stale-if-error=5"]))
        let validators = HTTPValidators(etag: "\"x\"", lastModified: nil, freshness: f)
        #expect(HTTPValidators(cacheData: validators.cacheData) == validators)
        let old = Data(#"{"etag":"\"x\""}"#.utf8)
        #expect(HTTPValidators(cacheData: old) == HTTPValidators(etag: "\"x\""))
    }
}
