import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin
import WebImageCompat

@Suite("ImageManager: where results are stored", .timeLimit(.minutes(1)))
struct ImageManagerStoreTests {
    @Test("storeCacheType memory keeps the download off the disk")
    func storeMemoryOnly() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/m.png", ManagerTestKit.png())
            var context = WebImageContext()
            context.storeCacheType = .memory
            _ = try await f.manager.loadImage(with: url, options: [.waitStoreCache], context: context)
            #expect(await f.cache.containsImage(forKey: url.absoluteString) == .memory)
            f.cache.clearMemory()
            #expect(await f.cache.containsImage(forKey: url.absoluteString) == .none)
        }
    }

    @Test("originalStoreCacheType none: a thumbnail load keeps no full-size data")
    func noOriginalStore() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/o.png", ManagerTestKit.png())
            var context = WebImageContext()
            context.thumbnailPixelSize = PixelSize(width: 4, height: 4)
            context.originalStoreCacheType = .none
            let result = try await f.manager.loadImage(with: url, options: [.waitStoreCache], context: context)
            #expect(result.image.width == 4)
            #expect(await f.cache.diskImageData(forKey: url.absoluteString) == nil)
            let key = try #require(result.cacheKey)
            #expect(await f.cache.containsImage(forKey: key) == .memory)
        }
    }

    @Test("the cache serializer chooses the disk bytes")
    func serializer() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/s.png", ManagerTestKit.png(width: 8, height: 8))
            let replacement = ManagerTestKit.png(width: 3, height: 3)
            var context = WebImageContext()
            context.cacheSerializer = { _, _, _ in replacement }
            _ = try await f.manager.loadImage(with: url, options: [.waitStoreCache], context: context)
            #expect(await f.cache.diskImageData(forKey: url.absoluteString) == replacement)
        }
    }

    @Test("queryMemoryData: a memory hit comes with its disk data (also synchronously)")
    func memoryData() async throws {
        try await ManagerFixture.with { f in
            let png = ManagerTestKit.png()
            let url = f.serve("/d.png", png)
            _ = try await f.manager.loadImage(with: url, options: [.waitStoreCache])
            let plain = try await f.manager.loadImage(with: url)
            #expect(plain.cacheType == .memory && plain.data == nil)
            let withData = try await f.manager.loadImage(with: url, options: [.queryMemoryData])
            #expect(withData.cacheType == .memory && withData.data == png)
            let sync = try await f.manager.loadImage(with: url, options: [.queryMemoryData, .queryMemoryDataSync])
            #expect(sync.data == png)
        }
    }

    @Test("a cache key filter returning nil loads without caching")
    func uncachedKey() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/u.png", ManagerTestKit.png())
            var context = WebImageContext()
            context.cacheKeyFilter = { _ in nil }
            let first = try await f.manager.loadImage(with: url, options: [.waitStoreCache], context: context)
            #expect(first.image.width > 0 && first.cacheKey == nil)
            let second = try await f.manager.loadImage(with: url, context: context)
            #expect(second.cacheType == .none)
            #expect(f.origin.requestCount("/u.png") == 2)
        }
    }

    @Test("a transform of an animated APNG is stored on disk (as WebP: there is no APNG encoder) and reads back animated")
    func animatedAPNGTransformStored() async throws {
        try await TestOrigin.with { origin in
            let directory = try TemporaryDirectory()
            let cache = ImageCache(namespace: "apng", directory: directory.url)
            let downloader = ImageDownloader(config: DownloaderConfig())
            let manager = ImageManager(cache: cache, loader: downloader)
            let data = try Corpus.data("png/wuffs/animated-red-blue.apng")
            origin.route("/anim.apng", .init(body: Array(data), contentType: "image/apng"))
            let url = origin.url("/anim.apng")
            var context = WebImageContext()
            context.imageTransformer = ImageFlippingTransformer(horizontal: true, vertical: false)
            let first = try await manager.loadImage(with: url, options: [.transformAnimatedImage, .waitStoreCache], context: context)
            #expect(first.image.frames.count == 4)
            let key = try #require(first.cacheKey)
            let stored = try #require(await cache.diskImageData(forKey: key), "the transformed animation is on disk")
            #expect(ImageFormat.detect(stored) == .webp)

            cache.clearMemory()
            let again = try await manager.loadImage(with: url, options: [.transformAnimatedImage], context: context)
            #expect(again.cacheType == .disk && again.image.frames.count == 4)
            #expect(origin.requestCount("/anim.apng") == 1)
            await downloader.shutdown()
        }
    }
}
