import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

@Suite("ImageManager: refreshCached revalidates with stored validators", .timeLimit(.minutes(1)))
struct ImageManagerRefreshTests {
    private func modificationAge(_ path: String) throws -> TimeInterval {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let date = try #require(attributes[.modificationDate] as? Date)
        return -date.timeIntervalSinceNow
    }

    @Test("304: exactly one callback (the cached image), and the entry's date is refreshed")
    func notModified() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/e.png", ManagerTestKit.png(), etag: "\"v1\"")
            _ = try await f.manager.loadImage(with: url, options: [.waitStoreCache])
            let stored = await f.cache.diskCache.extendedData(forKey: url.absoluteString)
            #expect(stored.flatMap(HTTPValidators.init(cacheData:))?.etag == "\"v1\"")

            let path = f.cache.cachePath(forKey: url.absoluteString)
            try TemporaryDirectory.age(path, secondsAgo: 3600)
            let results = await f.loadAll(url, options: [.refreshCached])
            #expect(results.count == 1)
            #expect(results.first?.cacheType == .memory)
            #expect(results.first?.isFinished == true)
            #expect(f.origin.requestCount("/e.png") == 2)
            #expect(try modificationAge(path) < 60)
            #expect(!f.manager.isRunning)
        }
    }

    @Test("a 304 renews the stored metadata by its own headers (RFC 9111 §4.3.4), the bytes untouched")
    func notModifiedRenews() async throws {
        try await ManagerFixture.with { f in
            let png = ManagerTestKit.png()
            let url = f.serve("/r.png", png, etag: "\"v1\"", headers: [("Cache-Control", "max-age=10")])
            _ = try await f.manager.loadImage(with: url, options: [.waitStoreCache])
            let before = await f.cache.diskCache.extendedData(forKey: url.absoluteString).flatMap(HTTPValidators.init(cacheData:))
            #expect(before?.freshness?.lifetime == 10)
            f.origin.route("/r.png", TestOrigin.Response(status: 304, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=900")]))
            let results = await f.loadAll(url, options: [.refreshCached])
            #expect(results.count == 1)
            let after = await f.cache.diskCache.extendedData(forKey: url.absoluteString).flatMap(HTTPValidators.init(cacheData:))
            #expect(after?.etag == "\"v1\"" && after?.freshness?.lifetime == 900)
            #expect(await f.cache.diskImageData(forKey: url.absoluteString) == png)
        }
    }

    @Test("200 with a changed image: a second callback, the cache replaced, the new validators stored")
    func changed() async throws {
        try await ManagerFixture.with { f in
            let old = ManagerTestKit.png(width: 16, height: 16, seed: 1)
            let new = ManagerTestKit.png(width: 20, height: 10, seed: 2)
            let url = f.serve("/c.png", old, etag: "\"old\"")
            _ = try await f.manager.loadImage(with: url, options: [.waitStoreCache])
            let sent = Locked<String?>(nil)
            f.origin.route("/c.png") { request in
                sent.withLock { $0 = request.headers["if-none-match"] }
                var response = TestOrigin.Response(body: Array(new), contentType: "image/png")
                response.etag = "\"new\""
                return response
            }

            let results = await f.loadAll(url, options: [.refreshCached, .waitStoreCache])
            #expect(results.count == 2)
            #expect(results.first?.image?.width == 16)
            #expect(results.first?.cacheType == .memory)
            #expect(results.last?.image?.width == 20)
            #expect(results.last?.cacheType == Optional(ImageCacheType.none))
            #expect(sent.withLock { $0 } == "\"old\"")
            #expect(await f.cache.diskImageData(forKey: url.absoluteString) == new)
            let validators = await f.cache.diskCache.extendedData(forKey: url.absoluteString).flatMap(HTTPValidators.init(cacheData:))
            #expect(validators?.etag == "\"new\"")
            #expect(f.cache.imageFromMemory(forKey: url.absoluteString)?.width == 20)
        }
    }

    @Test("Last-Modified alone revalidates too: If-Modified-Since is sent and a 304 gives one callback")
    func lastModified() async throws {
        try await ManagerFixture.with { f in
            let stamp = "Wed, 21 Oct 2026 07:28:00 GMT"
            let png = ManagerTestKit.png()
            f.origin.route("/lm.png") { request in
                if request.headers["if-modified-since"] == stamp { return TestOrigin.Response(status: 304) }
                return TestOrigin.Response(body: Array(png), contentType: "image/png", headers: [("Last-Modified", stamp)])
            }
            let url = f.origin.url("/lm.png")
            _ = try await f.manager.loadImage(with: url, options: [.waitStoreCache])
            let results = await f.loadAll(url, options: [.refreshCached])
            #expect(results.count == 1)
            #expect(f.origin.requestCount("/lm.png") == 2)
        }
    }

    @Test("without validators a refresh always downloads, unconditionally, and delivers the download")
    func noValidators() async throws {
        try await ManagerFixture.with { f in
            let png = ManagerTestKit.png()
            let conditional = Locked(false)
            f.origin.route("/plain.png") { request in
                if request.headers["if-none-match"] != nil || request.headers["if-modified-since"] != nil {
                    conditional.withLock { $0 = true }
                }
                return TestOrigin.Response(body: Array(png), contentType: "image/png")
            }
            let url = f.origin.url("/plain.png")
            _ = try await f.manager.loadImage(with: url, options: [.waitStoreCache])
            let results = await f.loadAll(url, options: [.refreshCached])
            #expect(results.count == 2)
            #expect(results.last?.cacheType == Optional(ImageCacheType.none))
            #expect(f.origin.requestCount("/plain.png") == 2)
            #expect(!conditional.withLock { $0 })
        }
    }
}
