import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageCompat
@testable import WebImageCodecs
import WebImageTestOrigin
import WebImageTestSupport

/// Stage A's library side: the load's cache as the stage's (``ImageCachingOriginals``) and
/// the load's loader as its fetcher (``LoaderFetch``).
@Suite("Library originals: the load's cache and loader under stage A", .timeLimit(.minutes(1)))
struct LibraryOriginalsTests {
    /// A loader that is no fetcher: records what it was handed, answers `data`, and a 304
    /// (thrown, as the callback form does) to a conditional load.
    final class CustomLoader: ImageLoader {
        let data: Data
        private let seen = Mutex<[(WebImageOptions, HTTPValidators?)]>([])
        var calls: [(WebImageOptions, HTTPValidators?)] { seen.withLock { $0 } }

        init(data: Data) { self.data = data }

        func canRequestImage(for url: URL?) -> Bool { true }
        func loadImage(
            with url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver
        ) async throws(WebImageError) -> ImageLoadResponse {
            seen.withLock { $0.append((options, context.validators)) }
            if context.validators != nil {
                let http = HTTPResponseInfo(statusCode: 304, headers: ["Cache-Control": "max-age=60"], url: url)
                throw WebImageError(.cacheNotModified, "not modified", httpStatusCode: 304, underlying: ResponseCause(http: http))
            }
            return ImageLoadResponse(url: url, image: nil, data: data, isFinished: true)
        }
    }

    @Test("a loader that is no fetcher is asked not to decode; its data is the body, its thrown 304 a notModified with headers")
    func customLoader() async throws {
        let url = try #require(URL(string: "custom://host/a.png"))
        let loader = CustomLoader(data: Data([1, 2, 3]))
        let fetch = LoaderFetch(loader: loader, options: [.lowPriority], context: WebImageContext(), observer: ImageLoadObserver())
        guard case .body(let original, let http) = try await fetch.fetch(url, validators: nil) else {
            Issue.record("expected a body")
            return
        }
        #expect(original.data == Data([1, 2, 3]) && http == nil)
        let validators = HTTPValidators(etag: "\"v1\"")
        guard case .notModified(let notModified) = try await fetch.fetch(url, validators: validators) else {
            Issue.record("expected notModified")
            return
        }
        #expect(notModified?.headers["Cache-Control"] == "max-age=60")
        let calls = loader.calls
        #expect(calls.count == 2)
        #expect(calls.allSatisfy { $0.0.contains(.avoidDecodeImage) && $0.0.contains(.lowPriority) })
        #expect(calls.first?.1 == nil && !(calls.first?.0.contains(.useHTTPCache) ?? true))
        #expect(calls.last?.1?.etag == "\"v1\"" && calls.last?.0.contains(.useHTTPCache) == true)
    }

    @Test("through the downloader: a body, a 304, and a status its config refuses as .status with the response's headers")
    func downloader() async throws {
        let origin = try await TestOrigin.start()
        let downloader = ImageDownloader(config: DownloaderConfig())
        try await withCleanup {
            var ok = TestOrigin.Response(body: [9, 9], contentType: "image/png", headers: [("Cache-Control", "max-age=5")])
            ok.etag = "\"e\""
            origin.route("/ok.png", ok)
            origin.route("/gone.png", TestOrigin.Response(status: 404, headers: [("X-Why", "gone")]))
            let fetch = LoaderFetch(loader: downloader, options: [], context: WebImageContext(), observer: ImageLoadObserver())
            guard case .body(let original, _) = try await fetch.fetch(origin.url("/ok.png"), validators: nil) else {
                Issue.record("expected a body")
                return
            }
            #expect(original.data == Data([9, 9]) && original.etag == "\"e\"" && original.cacheControl == "max-age=5")
            guard case .notModified = try await fetch.fetch(origin.url("/ok.png"), validators: HTTPValidators(etag: "\"e\"")) else {
                Issue.record("expected notModified")
                return
            }
            #expect(origin.requestHeaders("/ok.png").last?["if-none-match"] == "\"e\"")
            guard case .status(let http) = try await fetch.fetch(origin.url("/gone.png"), validators: nil) else {
                Issue.record("expected a status")
                return
            }
            #expect(http.statusCode == 404 && http.headers["X-Why"] == "gone")
        } cleanup: {
            await downloader.shutdown()
            await origin.shutdown()
        }
    }

    @Test("the cache's disk entry is the stage's copy: stored with its metadata as the library reads it, renewed, and what it supersedes removed")
    func cacheAdapter() async throws {
        let directory = try TemporaryDirectory()
        let cache = ImageCache(namespace: "originals", directory: directory.url)
        let png = Data([0x89, 0x50, 0x4E, 0x47])
        try await cache.store(nil, data: png, forKey: "derived", cacheType: .all)
        try await cache.store(DecodedImage(pixels: PixelBuffer(width: 1, height: 1), format: .png), data: nil,
                              forKey: "memory-only", cacheType: .memory)
        let originals = ImageCachingOriginals(cache: cache, superseded: [("derived", .all), ("memory-only", .memory)])
        #expect(await originals.storedValue(forKey: "a") == nil)
        #expect(originals.memoryValue(forKey: "a") == nil)

        let received = Date(timeIntervalSince1970: 1_000_000)
        let freshness = HTTPFreshness(receivedAt: received, lifetime: 60)
        await originals.store(OriginalData(data: png, etag: "\"v1\"", freshness: freshness, cacheControl: "max-age=60"), forKey: "a")
        #expect(await cache.diskImageData(forKey: "a") == png)
        // The library reads the same extended data as its validators.
        let stored = try #require(await cache.extendedData(forKey: "a").flatMap(HTTPValidators.init(cacheData:)))
        #expect(stored.etag == "\"v1\"" && stored.freshness?.lifetime == 60 && stored.freshness?.receivedAt == received)
        #expect(await cache.containsImage(forKey: "derived", cacheType: .all) == .none)
        #expect(cache.imageFromMemory(forKey: "memory-only") == nil)
        let read = try #require(await originals.storedValue(forKey: "a"))
        #expect(read.data == png && read.cacheControl == "max-age=60")

        var renewed = read
        renewed.etag = "\"v2\""
        await originals.renew(renewed, forKey: "a")
        #expect(await originals.storedValue(forKey: "a")?.etag == "\"v2\"")
        #expect(await cache.diskImageData(forKey: "a") == png)
        // Renewing an entry that is gone leaves a miss.
        await originals.renew(renewed, forKey: "gone")
        #expect(await originals.storedValue(forKey: "gone") == nil)
    }

    @Test("a cold load's original comes from stage A: an empty body is its error; a 304 it did not ask for is cacheNotModified, never blocked")
    func coldLoad() async throws {
        try await ManagerFixture.with { f in
            let empty = f.serve("/empty.png", Data())
            let failed = await f.loadAll(empty)
            #expect(failed.first?.error?.code == .badImageData)
            #expect(failed.first?.error?.message == "The source is empty")
            f.origin.route("/stray", .init(status: 304))
            let stray = f.origin.url("/stray")
            #expect(await f.loadAll(stray).first?.error?.code == .cacheNotModified)
            #expect(await f.loadAll(stray).first?.error?.code == .cacheNotModified, "not on the block list")
            #expect(f.origin.requestCount("/stray") == 2)
            // And a body: decoded by stage B, stored by the load.
            let url = f.serve("/ok.png", ManagerTestKit.png(), headers: [("Cache-Control", "max-age=60")])
            let loaded = await f.loadAll(url, options: [.waitStoreCache])
            #expect(loaded.first?.image?.width == 32 && loaded.first?.http?.statusCode == 200)
            #expect(await f.cache.diskImageData(forKey: url.absoluteString) == ManagerTestKit.png())
            #expect(f.manager.pipeline.originals.startedCount == 0, "each load fetches on its own; the downloader shares transfers")
        }
    }

    /// A loader that makes an image and no bytes (a generated image).
    final class ImageOnlyLoader: ImageLoader {
        func canRequestImage(for url: URL?) -> Bool { true }
        func loadImage(
            with url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver
        ) async throws(WebImageError) -> ImageLoadResponse {
            ImageLoadResponse(url: url, image: DecodedImage(pixels: PixelBuffer(width: 3, height: 2), format: .png), data: nil, isFinished: true)
        }
    }

    @Test("refreshCached with a loader that gives an image and no bytes still delivers its new image")
    func imageWithoutBytes() async throws {
        let directory = try TemporaryDirectory()
        let manager = ImageManager(cache: ImageCache(namespace: "generated", directory: directory.url), loader: ImageOnlyLoader())
        let url = try #require(URL(string: "generated://host/a"))
        _ = try await manager.loadImage(with: url, options: [.waitStoreCache])
        let recorder = ResultRecorder()
        let operation = manager.loadImage(with: url, options: [.refreshCached], completed: recorder.record)
        #expect(await ManagerTestKit.eventually { operation.isFinished })
        let results = await recorder.settled()
        #expect(results.map(\.cacheType) == [.memory, ImageCacheType.none])
        #expect(results.last?.image?.width == 3 && results.last?.error == nil)
    }

    @Test("background revalidations share stage A's fetch only with the manager's own cache and loader and no modifier")
    func sharing() async throws {
        let directory = try TemporaryDirectory()
        let manager = ImageManager(cache: ImageCache(namespace: "k", directory: directory.url), loader: CustomLoader(data: Data()))
        let url = try #require(URL(string: "https://example.invalid/a.png"))
        func shares(_ context: WebImageContext) -> Bool {
            ImagePipeline.sharesOriginals(ImageRequest(url: url, options: [], context: context, originalKey: "a", manager: manager))
        }
        #expect(shares(WebImageContext()))
        var loader = WebImageContext()
        loader.imageLoader = CustomLoader(data: Data())
        var cache = WebImageContext()
        cache.imageCache = ImageCache(namespace: "other", directory: directory.url)
        var request = WebImageContext()
        request.downloadRequestModifier = { $0 }
        var response = WebImageContext()
        response.downloadResponseModifier = { $0 }
        for context in [loader, cache, request, response] { #expect(!shares(context)) }
    }
}
