import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageCompat
@testable import WebImageCodecs
import WebImageTestSupport

/// ``WebImageContext`` is the one context of the manager, its loader and its cache (as
/// SDWebImage's `SDWebImageContext`): a load's context reaches a custom ``ImageLoader``
/// and a custom ``ImageCaching`` with the values the manager decides filled in (the
/// loader's decode options and validators, a query's thumbnail size and scale-down
/// budget), and a loader or cache given a context directly derives what the separate
/// loader and cache contexts used to carry. Every expected value is written out here.
@Suite("WebImageContext: one context from the manager to its loader and cache", .timeLimit(.minutes(1)))
struct ContextMergeTests {
    /// A loader that records the context and options of every load and fails it
    /// (transiently, so the URL is not blocked): what it was handed is all the test needs.
    final class ContextRecordingLoader: ImageLoader {
        private let seen = Mutex<[(options: WebImageOptions, context: WebImageContext)]>([])
        var loads: [(options: WebImageOptions, context: WebImageContext)] { seen.withLock { $0 } }

        func canRequestImage(for url: URL?) -> Bool { true }
        func loadImage(
            with url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver
        ) async throws(WebImageError) -> ImageLoadResponse {
            seen.withLock { $0.append((options: options, context: context)) }
            throw WebImageError(.cannotConnect, "recording loader: no network")
        }
    }

    /// An ``ImageCache`` that records the key and context of every query.
    final class ContextRecordingCache: ForwardingCache {
        let base: ImageCache
        private let seen = Mutex<[(key: String, context: WebImageContext)]>([])
        var queries: [(key: String, context: WebImageContext)] { seen.withLock { $0 } }

        init(_ base: ImageCache) { self.base = base }

        func queryImageSynchronously(
            forKey key: String, options: WebImageOptions, context: WebImageContext
        ) -> ImageCacheQueryResult? {
            seen.withLock { $0.append((key: key, context: context)) }
            return base.queryImageSynchronously(forKey: key, options: options, context: context)
        }
        func queryImage(
            forKey key: String, options: WebImageOptions, context: WebImageContext
        ) async throws(WebImageError) -> ImageCacheQueryResult {
            seen.withLock { $0.append((key: key, context: context)) }
            return try await base.queryImage(forKey: key, options: options, context: context)
        }
    }

    /// 60 MiB of RGBA: SDWebImage's scale-down budget, written out rather than read from
    /// ``WebImageContext/defaultScaleDownLimitBytes``.
    static let sixtyMiB = 60 * 1024 * 1024

    @Test("a custom loader gets the manager's context: the hooks, coder, retry policy and queue as given, the decode options worked out")
    func loaderSeesManagerContext() async throws {
        let dir = try TemporaryDirectory()
        let loader = ContextRecordingLoader()
        let manager = ImageManager(cache: ImageCache(namespace: "ctx", directory: dir.url), loader: loader)
        let url = try #require(URL(string: "https://img.example/a.png"))
        let coder = ImageCodersManager(coders: [PNGCoder()])
        let queue = DispatchQueue(label: "ctx.merge.callbacks")
        let size = PixelSize(width: 40, height: 30)
        var context = WebImageContext()
        context.thumbnailPixelSize = size
        context.preserveAspectRatio = false
        context.imageScaleFactor = 3
        context.imageCoder = coder
        context.callbackQueue = queue
        context.retryPolicy = RetryPolicy(maxAttempts: 4)
        context.downloadRequestModifier = { request in
            var request = request
            request.headers["X-Merged"] = "yes"
            return request
        }
        context.downloadResponseModifier = { info in
            var info = info
            info.statusCode = 299
            return info
        }
        // The manager decides these two itself: a caller's values are replaced.
        context.decodeOptions = ImageDecodeOptions(scale: 5)
        context.validators = HTTPValidators(etag: "\"caller's\"")

        await #expect(throws: WebImageError.self) {
            _ = try await manager.loadImage(with: url, options: [.scaleDownLargeImages, .decodeFirstFrameOnly], context: context)
        }
        let load = try #require(loader.loads.first)
        #expect(loader.loads.count == 1)
        let handed = load.context
        #expect(handed.decodeOptions == ImageDecodeOptions(
            thumbnailPixelSize: size, preserveAspectRatio: false, scaleDownLimitBytes: Self.sixtyMiB,
            maxPixelCount: 100_000_000, firstFrameOnly: true, scale: 3))
        #expect(handed.validators == nil)
        #expect(handed.thumbnailPixelSize == size)
        #expect(handed.preserveAspectRatio == false)
        #expect(handed.imageScaleFactor == 3)
        #expect((handed.imageCoder as? ImageCodersManager) === coder)
        #expect(handed.callbackQueue === queue)
        #expect(handed.retryPolicy == RetryPolicy(maxAttempts: 4))
        let request = try #require(handed.downloadRequestModifier?(ImageDownloadRequest(url: url)))
        #expect(request.headers["X-Merged"] == "yes")
        let response = handed.downloadResponseModifier?(HTTPResponseInfo(statusCode: 200, headers: [:], url: url))
        #expect(response?.statusCode == 299)
        // What the downloader and the file and data: loaders decode with: the same.
        #expect(handed.loaderDecodeOptions(load.options) == handed.decodeOptions)
    }

    @Test("the loader's scale comes from the cache key unless imageScaleFactor is set; no scale-down without the option")
    func loaderScaleFromKey() async throws {
        let dir = try TemporaryDirectory()
        let loader = ContextRecordingLoader()
        let manager = ImageManager(cache: ImageCache(namespace: "ctx", directory: dir.url), loader: loader)
        let url = try #require(URL(string: "https://img.example/b@2x.png"))
        await #expect(throws: WebImageError.self) { _ = try await manager.loadImage(with: url) }
        var limited = WebImageContext()
        limited.scaleDownLimitBytes = 4096
        limited.maxPixelCount = 1_000_000
        await #expect(throws: WebImageError.self) { _ = try await manager.loadImage(with: url, context: limited) }
        #expect(loader.loads.map { $0.context.decodeOptions } == [
            ImageDecodeOptions(scale: 2),
            // A budget of the caller's own is kept, with or without the option.
            ImageDecodeOptions(scaleDownLimitBytes: 4096, maxPixelCount: 1_000_000, scale: 2),
        ])
    }

    @Test("a custom cache gets the manager's context; the thumbnail size only on the query of the original")
    func cacheSeesManagerContext() async throws {
        let dir = try TemporaryDirectory()
        let cache = ContextRecordingCache(ImageCache(namespace: "ctx", directory: dir.url))
        let manager = ImageManager(cache: cache, loader: ContextRecordingLoader())
        let url = try #require(URL(string: "https://img.example/c.png"))
        let size = PixelSize(width: 64, height: 48)
        let queue = DispatchQueue(label: "ctx.merge.cache")
        var context = WebImageContext()
        context.thumbnailPixelSize = size
        context.imageScaleFactor = 3
        context.maxPixelCount = 5_000_000
        context.callbackQueue = queue
        await #expect(throws: WebImageError.self) {
            _ = try await manager.loadImage(with: url, options: [.scaleDownLargeImages], context: context)
        }
        let thumbnailKey = CacheKey.thumbnailed("https://img.example/c.png", pixelSize: size, preserveAspectRatio: true)
        #expect(cache.queries.map { $0.key } == [thumbnailKey, "https://img.example/c.png"])
        let (own, original) = (cache.queries[0].context, cache.queries[1].context)
        // The thumbnail key's own query: its disk data is the thumbnail, so no size.
        #expect(own.thumbnailPixelSize == nil)
        #expect(own.memoryKey(forKey: thumbnailKey) == thumbnailKey)
        #expect(own.decodeOptions(forKey: thumbnailKey, firstFrameOnly: false) == ImageDecodeOptions(
            scaleDownLimitBytes: Self.sixtyMiB, maxPixelCount: 5_000_000, scale: 3))
        // The original's data decoded to the thumbnail, kept in memory under the thumbnail key.
        #expect(original.thumbnailPixelSize == size)
        #expect(original.memoryKey(forKey: "https://img.example/c.png") == thumbnailKey)
        #expect(original.decodeOptions(forKey: "https://img.example/c.png", firstFrameOnly: true) == ImageDecodeOptions(
            thumbnailPixelSize: size, scaleDownLimitBytes: Self.sixtyMiB, maxPixelCount: 5_000_000, firstFrameOnly: true, scale: 3))
        for handed in [own, original] {
            #expect(handed.scaleDownLimitBytes == Self.sixtyMiB)
            #expect(handed.maxPixelCount == 5_000_000)
            #expect(handed.imageScaleFactor == 3)
            #expect(handed.callbackQueue === queue)
        }
    }

    @Test("a cache query without scaleDownLargeImages has no budget, and takes the scale from its key")
    func cacheDefaults() async throws {
        let dir = try TemporaryDirectory()
        let cache = ContextRecordingCache(ImageCache(namespace: "ctx", directory: dir.url))
        let manager = ImageManager(cache: cache, loader: ContextRecordingLoader())
        let url = try #require(URL(string: "https://img.example/d@3x.png"))
        await #expect(throws: WebImageError.self) { _ = try await manager.loadImage(with: url) }
        let query = try #require(cache.queries.first)
        #expect(cache.queries.count == 1)
        #expect(query.context.scaleDownLimitBytes == nil)
        #expect(query.context.memoryKey(forKey: query.key) == "https://img.example/d@3x.png")
        #expect(query.context.decodeOptions(forKey: query.key, firstFrameOnly: false) == ImageDecodeOptions(scale: 3))
    }

    @Test("a revalidation hands the loader the stored validators with useHTTPCache; a plain download none")
    func revalidationHandsValidators() async throws {
        let dir = try TemporaryDirectory()
        let base = ImageCache(namespace: "ctx", directory: dir.url)
        let loader = ContextRecordingLoader()
        let manager = ImageManager(cache: base, loader: loader)
        let url = try #require(URL(string: "https://img.example/e.png"))
        let png = ManagerTestKit.png()
        let image = try ManagerTestKit.coders.decode(png, options: ImageDecodeOptions())
        try await base.store(image, data: png, forKey: "https://img.example/e.png", cacheType: .all)
        try await base.setExtendedData(HTTPValidators(etag: "\"v1\"").cacheData, forKey: "https://img.example/e.png")

        // refreshCached: the cached image first, then the check, which the loader fails
        // (so the cached image stands and nothing follows it).
        var results: [ImageLoadResult] = []
        for try await result in manager.loadImageStream(with: url, options: [.refreshCached]) { results.append(result) }
        #expect(results.count == 1)
        let check = try #require(loader.loads.first)
        #expect(check.context.validators == HTTPValidators(etag: "\"v1\""))
        #expect(check.options.contains(.useHTTPCache))

        // A plain load of another URL is no revalidation: no validators.
        let other = try #require(URL(string: "https://img.example/f.png"))
        await #expect(throws: WebImageError.self) { _ = try await manager.loadImage(with: other) }
        #expect(loader.loads.count == 2)
        #expect(loader.loads.last?.context.validators == nil)
        #expect(loader.loads.last?.options.contains(.useHTTPCache) == false)
    }

    @Test("given directly: a default context is a plain full-size load and query; decodeOptions overrides a loader's derivation")
    func directDerivation() {
        let plain = WebImageContext()
        #expect(plain.loaderDecodeOptions([]) == ImageDecodeOptions())
        #expect(plain.loaderDecodeOptions([.decodeFirstFrameOnly, .scaleDownLargeImages])
            == ImageDecodeOptions(scaleDownLimitBytes: Self.sixtyMiB, firstFrameOnly: true))
        #expect(plain.decodeOptions(forKey: "a@2x.png", firstFrameOnly: false) == ImageDecodeOptions(scale: 2))
        #expect(plain.memoryKey(forKey: "a.png") == "a.png")
        #expect(WebImageContext.defaultScaleDownLimitBytes == Self.sixtyMiB)

        var fields = WebImageContext()
        fields.thumbnailPixelSize = PixelSize(width: 10, height: 20)
        fields.preserveAspectRatio = false
        fields.scaleDownLimitBytes = 1000
        fields.maxPixelCount = 77
        #expect(fields.loaderDecodeOptions([.scaleDownLargeImages]) == ImageDecodeOptions(
            thumbnailPixelSize: PixelSize(width: 10, height: 20), preserveAspectRatio: false,
            scaleDownLimitBytes: 1000, maxPixelCount: 77, scale: 1))
        #expect(fields.memoryKey(forKey: "a.png") == "a-Thumbnail({10,20},0).png")

        var explicit = fields
        explicit.decodeOptions = ImageDecodeOptions(applyOrientation: false, scale: 2)
        #expect(explicit.loaderDecodeOptions([.decodeFirstFrameOnly, .scaleDownLargeImages]) == ImageDecodeOptions(
            scaleDownLimitBytes: Self.sixtyMiB, firstFrameOnly: true, applyOrientation: false, scale: 2))
        // A cache query reads the fields, never the override: its memory key names them.
        #expect(explicit.decodeOptions(forKey: "a.png", firstFrameOnly: false) == ImageDecodeOptions(
            thumbnailPixelSize: PixelSize(width: 10, height: 20), preserveAspectRatio: false,
            scaleDownLimitBytes: 1000, maxPixelCount: 77, scale: 1))
    }

    @Test("a file loader given a thumbnail size directly decodes to it")
    func fileLoaderDerivesThumbnail() async throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.appendingPathComponent("g.png")
        try ManagerTestKit.png(width: 32, height: 24).write(to: file)
        var context = WebImageContext()
        context.thumbnailPixelSize = PixelSize(width: 16, height: 16)
        let response = try await FileImageLoader(coders: ManagerTestKit.coders).loadImage(with: file, context: context)
        #expect(response.image?.width == 16)
        #expect(response.image?.height == 12)
    }
}
