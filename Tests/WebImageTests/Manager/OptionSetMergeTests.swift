import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageCompat
@testable import WebImageCodecs
import WebImageTestSupport

/// ``WebImageOptions`` is the one option set of the manager, its loader and its cache:
/// a load's options reach a custom ``ImageLoader`` and a custom ``ImageCaching`` as the
/// same values, each layer gets the bits it reads (and nothing that would change what it
/// did when the sets were separate), and no two options share a bit.
@Suite("WebImageOptions: one option set from the manager to its loader and cache", .timeLimit(.minutes(1)))
struct OptionSetMergeTests {
    /// Every named option, written out here (not taken from `byName`, which leaves the
    /// layer-only ones out), so a new option with a taken bit fails ``distinctBits()``.
    static let named: [(String, WebImageOptions)] = [
        ("retryFailed", .retryFailed), ("lowPriority", .lowPriority), ("progressiveLoad", .progressiveLoad),
        ("refreshCached", .refreshCached), ("handleCookies", .handleCookies),
        ("allowInvalidSSLCertificates", .allowInvalidSSLCertificates), ("highPriority", .highPriority),
        ("delayPlaceholder", .delayPlaceholder), ("transformAnimatedImage", .transformAnimatedImage),
        ("avoidAutoSetImage", .avoidAutoSetImage), ("scaleDownLargeImages", .scaleDownLargeImages),
        ("queryMemoryData", .queryMemoryData), ("queryMemoryDataSync", .queryMemoryDataSync),
        ("queryDiskDataSync", .queryDiskDataSync), ("fromCacheOnly", .fromCacheOnly),
        ("fromLoaderOnly", .fromLoaderOnly), ("avoidDecodeImage", .avoidDecodeImage),
        ("decodeFirstFrameOnly", .decodeFirstFrameOnly), ("waitStoreCache", .waitStoreCache),
        ("avoidAutoCancelImage", .avoidAutoCancelImage), ("cacheMemoryOnly", .cacheMemoryOnly),
        ("queryMemorySync", .queryMemorySync), ("lazyAnimatedImage", .lazyAnimatedImage),
        ("avoidMemoryCache", .avoidMemoryCache),
        // Once in SDWebImageDownloaderOptions / SDImageCacheOptions (and here in
        // DownloaderOptions / ImageCacheOptions).
        ("useHTTPCache", .useHTTPCache), ("ignoreCachedResponse", .ignoreCachedResponse),
        ("queryMemoryOnly", .queryMemoryOnly), ("queryDiskOnly", .queryDiskOnly),
    ]

    /// A loader that records the options of every load and fails it (transiently, so the
    /// URL is not blocked): what it was asked is all the test needs.
    final class OptionsRecordingLoader: ImageLoader {
        private let seen = Mutex<[WebImageOptions]>([])
        var options: [WebImageOptions] { seen.withLock { $0 } }

        func canRequestImage(for url: URL?) -> Bool { true }
        func loadImage(
            with url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver
        ) async throws(WebImageError) -> ImageLoadResponse {
            seen.withLock { $0.append(options) }
            throw WebImageError(.cannotConnect, "recording loader: no network")
        }
    }

    /// An ``ImageCache`` that records the options of every query.
    final class OptionsRecordingCache: ForwardingCache {
        let base: ImageCache
        private let seen = Mutex<[WebImageOptions]>([])
        var queries: [WebImageOptions] { seen.withLock { $0 } }

        init(_ base: ImageCache) { self.base = base }

        func queryImageSynchronously(
            forKey key: String, options: WebImageOptions, context: WebImageContext
        ) -> ImageCacheQueryResult? {
            seen.withLock { $0.append(options) }
            return base.queryImageSynchronously(forKey: key, options: options, context: context)
        }
        func queryImage(
            forKey key: String, options: WebImageOptions, context: WebImageContext
        ) async throws(WebImageError) -> ImageCacheQueryResult {
            seen.withLock { $0.append(options) }
            return try await base.queryImage(forKey: key, options: options, context: context)
        }
    }

    @Test("every named option has one bit of its own")
    func distinctBits() {
        var taken: WebImageOptions = []
        for (name, option) in Self.named {
            #expect(option.rawValue.nonzeroBitCount == 1, "\(name) is one bit")
            #expect(taken.isDisjoint(with: option), "\(name)'s bit is not another option's")
            taken.formUnion(option)
        }
        #expect(Set(Self.named.map(\.0)).count == Self.named.count)
    }

    @Test("--option names: every manager option, none of the bits the manager sets itself")
    func byNameListsManagerOptions() {
        let layerOnly: Set<String> = ["useHTTPCache", "ignoreCachedResponse", "queryMemoryOnly", "queryDiskOnly"]
        for (name, option) in Self.named {
            #expect(WebImageOptions.byName[name] == (layerOnly.contains(name) ? nil : option), "\(name)")
        }
        #expect(WebImageOptions.byName.count == Self.named.count - layerOnly.count)
    }

    @Test("a manager load's options reach a custom loader as the same values, manager-only bits left out")
    func loaderSeesManagerOptions() async throws {
        let dir = try TemporaryDirectory()
        let loader = OptionsRecordingLoader()
        let manager = ImageManager(cache: ImageCache(namespace: "merge", directory: dir.url), loader: loader)
        let url = try #require(URL(string: "https://img.example/a.png"))
        let transfer: WebImageOptions = [.highPriority, .scaleDownLargeImages, .decodeFirstFrameOnly, .handleCookies]
        // Manager-only bits, and the conditional bit the manager decides itself.
        let managerOnly: WebImageOptions = [.retryFailed, .delayPlaceholder, .waitStoreCache, .useHTTPCache, .queryMemoryOnly]
        await #expect(throws: WebImageError.self) {
            _ = try await manager.loadImage(with: url, options: transfer.union(managerOnly))
        }
        #expect(loader.options == [transfer])
        // The downloader's coalescing key reads no bit but the TLS one, so whatever the
        // manager passes, transfers of one request are not split by options.
        let request = ImageDownloadRequest(url: url, headers: ["Accept": "image/*"])
        #expect(ImageDownloader.coalescingKey(for: request, options: transfer.union(managerOnly))
            == ImageDownloader.coalescingKey(for: request, options: []))
    }

    @Test("a manager load's cache query carries its query bits plus queryMemoryOnly / queryDiskOnly from queryCacheType")
    func cacheSeesManagerOptions() async throws {
        let dir = try TemporaryDirectory()
        let cache = OptionsRecordingCache(ImageCache(namespace: "merge", directory: dir.url))
        let manager = ImageManager(cache: cache, loader: OptionsRecordingLoader())
        let url = try #require(URL(string: "https://img.example/b.png"))
        let expected: [(ImageCacheType, WebImageOptions)] = [
            (.memory, [.queryMemoryData, .queryMemoryOnly]),
            (.disk, [.queryMemoryData, .queryDiskOnly]),
            (.all, [.queryMemoryData]),
        ]
        for (cacheType, options) in expected {
            var context = WebImageContext()
            context.queryCacheType = cacheType
            // `queryDiskOnly` on the load itself is ignored: the query's cache type decides.
            await #expect(throws: WebImageError.self) {
                _ = try await manager.loadImage(
                    with: url, options: [.queryMemoryData, .retryFailed, .highPriority, .queryDiskOnly], context: context)
            }
            #expect(cache.queries.last == options, "\(cacheType)")
        }
        #expect(cache.queries.count == expected.count)
    }

    @Test("the request: a loader gets the transfer and decode bits, a cache query its query bits")
    func mapping() throws {
        let dir = try TemporaryDirectory()
        let manager = ImageManager(cache: ImageCache(namespace: "merge", directory: dir.url), loader: OptionsRecordingLoader())
        let url = try #require(URL(string: "https://img.example/c.png"))
        let every = Self.named.reduce(into: WebImageOptions()) { $0.formUnion($1.1) }
        let queryBits: WebImageOptions = [
            .decodeFirstFrameOnly, .queryMemorySync, .queryDiskDataSync, .queryMemoryData, .queryMemoryDataSync,
        ]
        // A plain load's result query looks where queryCacheType says; its original query
        // (a result kept apart) where originalQueryCacheType says, without the sync and
        // data bits, which only the result's own query answers.
        for cacheType in [ImageCacheType.all, .none, .memory, .disk] {
            var context = WebImageContext()
            context.queryCacheType = cacheType
            context.originalQueryCacheType = cacheType
            let request = ImageRequest(url: url, options: every, context: context, originalKey: "c", manager: manager)
            let only: WebImageOptions = cacheType == .memory ? .queryMemoryOnly : cacheType == .disk ? .queryDiskOnly : []
            #expect(request.loaderOptions == [
                .lowPriority, .highPriority, .progressiveLoad, .handleCookies, .allowInvalidSSLCertificates,
                .scaleDownLargeImages, .decodeFirstFrameOnly, .avoidDecodeImage, .lazyAnimatedImage,
            ])
            // lazyAnimatedImage keeps the result apart: no memory data from its own query.
            #expect(request.resultQuery.options == queryBits.subtracting([.queryMemoryData, .queryMemoryDataSync]).union(only))
            #expect(request.originalQuery.options == WebImageOptions.decodeFirstFrameOnly.union(only), "\(cacheType)")
            let eager = ImageRequest(
                url: url, options: every.subtracting(.lazyAnimatedImage), context: context, originalKey: "c", manager: manager)
            #expect(eager.resultQuery.options == queryBits.union(only))
        }
        #expect(WebImageOptions([.highPriority, .lowPriority]).loadPriority == .high)
        #expect(WebImageOptions.ignoreCachedResponse.isConditional && WebImageOptions.useHTTPCache.isConditional)
        #expect(!ImageRequest.loaderBits.isConditional)
    }

    @Test("a no-store response is stored as cacheMemoryOnly stores: in memory only, and with avoidMemoryCache nowhere")
    func noStoreNarrowsLikeCacheMemoryOnly() throws {
        let dir = try TemporaryDirectory()
        let manager = ImageManager(cache: ImageCache(namespace: "merge", directory: dir.url), loader: OptionsRecordingLoader())
        let url = try #require(URL(string: "https://img.example/c.png"))
        let plain = ImageRequest(url: url, options: [], context: WebImageContext(), originalKey: "c", manager: manager)
        let bit = ImageRequest(url: url, options: .cacheMemoryOnly, context: WebImageContext(), originalKey: "c", manager: manager)
        let avoid = ImageRequest(url: url, options: .avoidMemoryCache, context: WebImageContext(), originalKey: "c", manager: manager)
        for cacheType in [ImageCacheType.all, .memory, .disk, .none] {
            #expect(plain.storeCacheType(cacheType) == cacheType)
            #expect(plain.storeCacheType(cacheType, memoryOnly: true) == bit.storeCacheType(cacheType), "\(cacheType)")
            #expect(avoid.storeCacheType(cacheType, memoryOnly: true) == ImageCacheType.none, "\(cacheType)")
        }
        #expect(plain.storeCacheType(.all, memoryOnly: true) == .memory && plain.storeCacheType(.disk, memoryOnly: true) == ImageCacheType.none)
    }
}
