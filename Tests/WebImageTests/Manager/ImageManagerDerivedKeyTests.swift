import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageCompat

@Suite("ImageManager: cache keys, thumbnails and transformers", .timeLimit(.minutes(1)))
struct ImageManagerDerivedKeyTests {
    let thumbnail = PixelSize(width: 8, height: 8)

    @Test("cacheKey applies the filter, then the thumbnail suffix, then the transformer key")
    func keyComposition() throws {
        let manager = ImageManager(cache: ImageCache(namespace: "keys", directory: try TemporaryDirectory().url))
        let url = try #require(URL(string: "http://host/a.png?v=1"))
        #expect(manager.cacheKey(for: url) == "http://host/a.png?v=1")
        #expect(manager.cacheKey(for: nil) == nil)

        var context = WebImageContext()
        context.cacheKeyFilter = { $0.absoluteString.replacingOccurrences(of: "?v=1", with: "") }
        #expect(manager.cacheKey(for: url, context: context) == "http://host/a.png")
        context.thumbnailPixelSize = thumbnail
        let thumbKey = CacheKey.thumbnailed("http://host/a.png", pixelSize: thumbnail)
        #expect(manager.cacheKey(for: url, context: context) == thumbKey)
        let flip = ImageFlippingTransformer(horizontal: true, vertical: false)
        context.imageTransformer = flip
        #expect(manager.cacheKey(for: url, context: context) == CacheKey.transformed(thumbKey, suffix: flip.transformerKey))

        context.cacheKeyFilter = { _ in nil }
        #expect(manager.cacheKey(for: url, context: context) == nil)
    }

    @Test("the key filter, a user closure, runs once per load on every way in: cold, memory hit, imageTask, stream, callback form, prefetch")
    func keyFilterOncePerLoad() async throws {
        try await ManagerFixture.with { f in
            let calls = Mutex(0)
            f.manager.cacheKeyFilter = { url in
                calls.withLock { $0 += 1 }
                return url.absoluteString
            }
            func counted(_ load: () async throws -> Void) async rethrows -> Int {
                calls.withLock { $0 = 0 }
                try await load()
                return calls.withLock { $0 }
            }
            let url = f.serve("/filtered.png", ManagerTestKit.png())
            let other = f.serve("/other.png", ManagerTestKit.png(seed: 3))
            let cold = try await counted { _ = try await f.manager.loadImage(with: url) }
            #expect(cold == 1, "a cold load")
            let memory = try await counted { _ = try await f.manager.loadImage(with: url) }
            #expect(memory == 1, "a memory hit")
            let task = try await counted { _ = try await f.manager.imageTask(with: other).response }
            #expect(task == 1, "imageTask, cold")
            let stream = try await counted { for try await _ in f.manager.loadImageStream(with: url, options: [.refreshCached]) {} }
            #expect(stream == 1, "a stream with refreshCached")
            let callback = await counted { _ = await f.loadAll(other, options: [.queryMemorySync, .refreshCached]) }
            #expect(callback == 1, "the callback form's synchronous hit and its refresh")
            let prefetch = await counted { _ = await ImagePrefetcher(manager: f.manager).prefetch([url]) }
            #expect(prefetch == 1, "a prefetch")
        }
    }

    @Test("a thumbnail load stores the full-size data under the URL and delivers the thumbnail without data")
    func thumbnailDownload() async throws {
        try await ManagerFixture.with { f in
            let png = ManagerTestKit.png(width: 32, height: 24)
            let url = f.serve("/big.png", png)
            var context = WebImageContext()
            context.thumbnailPixelSize = thumbnail
            let result = try await f.manager.loadImage(with: url, options: [.waitStoreCache], context: context)
            #expect(result.image.width == 8)
            #expect(result.image.height == 6)
            #expect(result.data == nil)
            #expect(await f.cache.diskImageData(forKey: url.absoluteString) == png)
            #expect(f.cache.imageFromMemory(forKey: url.absoluteString) == nil, "the original goes to disk only by default")
            let key = try #require(f.manager.cacheKey(for: url, context: context))
            #expect(f.cache.imageFromMemory(forKey: key)?.width == 8)
        }
    }

    @Test("a thumbnail is made from the full-size disk data without any request")
    func thumbnailFromDisk() async throws {
        try await ManagerFixture.with { f in
            let png = ManagerTestKit.png(width: 32, height: 24)
            let url = f.origin.url("/cached.png")
            try await f.cache.store(nil, data: png, forKey: url.absoluteString, cacheType: .disk)
            var context = WebImageContext()
            context.thumbnailPixelSize = thumbnail
            let result = try await f.manager.loadImage(with: url, context: context)
            #expect(result.image.width == 8)
            #expect(result.cacheType == .disk)
            #expect(result.data == nil)
            #expect(f.origin.requestCount("/cached.png") == 0)
        }
    }

    @Test("a transformer's result is cached under its own key, made from the original's disk data next time")
    func transformed() async throws {
        try await ManagerFixture.with { f in
            let png = ManagerTestKit.png(width: 32, height: 24)
            let url = f.serve("/t.png", png)
            var context = WebImageContext()
            context.imageTransformer = ImageResizingTransformer(size: PixelSize(width: 10, height: 10), mode: .fill)
            let first = try await f.manager.loadImage(with: url, options: [.waitStoreCache], context: context)
            #expect(first.image.width == 10)
            #expect(first.data == nil)
            let key = try #require(first.cacheKey)
            #expect(key != url.absoluteString)
            #expect(await f.cache.diskImageData(forKey: url.absoluteString) == png)

            f.cache.clearMemory()
            await f.cache.removeImage(forKey: key, fromDisk: true)
            let second = try await f.manager.loadImage(with: url, context: context)
            #expect(second.image.width == 10)
            #expect(second.cacheType == .disk)
            #expect(f.origin.requestCount("/t.png") == 1)

            let third = try await f.manager.loadImage(with: url, context: context)
            #expect(third.cacheType == .memory)
        }
    }

    @Test("the manager's transformer is read once per load: replaced while the load starts, the result is keyed and transformed by the one read")
    func transformerReadOnce() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/once.png", ManagerTestKit.png(width: 32, height: 24))
            let replacement = ImageResizingTransformer(size: PixelSize(width: 4, height: 4), mode: .fill)
            let first = ReplacingTransformer(manager: f.manager, replacement: replacement)
            f.manager.transformer = first
            // fromLoaderOnly: no memory hit first, so the request is what reads the keys.
            let response = try await f.manager.loadImage(with: url, options: [.fromLoaderOnly])
            #expect(f.manager.transformer?.transformerKey == replacement.transformerKey, "replaced while the load started")
            #expect(response.cacheKey == CacheKey.transformed(url.absoluteString, suffix: ReplacingTransformer.key))
            #expect(response.image.width == 10 && response.image.height == 10, "transformed by the transformer its key names")
        }
    }

    @Test("the delegate may replace a downloaded image; the replacement is delivered without data")
    func delegateTransform() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/r.png", ManagerTestKit.png())
            let delegate = Replacer()
            f.manager.delegate = delegate
            let result = try await f.manager.loadImage(with: url)
            #expect(result.image.width == 2)
            #expect(result.data == nil)
            withExtendedLifetime(delegate) {}
        }
    }

    @Test("a delegate set while a load waits for its download reaches the stages still ahead of it")
    func delegateSetDuringALoad() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/late.png", ManagerTestKit.png(), delay: .milliseconds(400))
            let task = f.manager.imageTask(with: url)
            // The load is under way (its request sent) before the delegate is set.
            #expect(await ManagerTestKit.eventually { f.origin.requestCount("/late.png") == 1 })
            let delegate = Replacer()
            f.manager.delegate = delegate
            let result = try await task.response
            #expect(result.image.width == 2, "the replacement of a delegate set after the load started")
            withExtendedLifetime(delegate) {}
        }
    }

    @Test("shouldDownloadImage false: no request, no image, no error")
    func vetoDownload() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/v.png", ManagerTestKit.png())
            let delegate = Replacer(allowDownload: false)
            f.manager.delegate = delegate
            let results = await f.loadAll(url)
            #expect(results.count == 1)
            #expect(results.first?.image == nil && results.first?.error == nil)
            #expect(f.origin.requestCount("/v.png") == 0)
            withExtendedLifetime(delegate) {}
        }
    }
}

/// A delegate replacing every download with a 2×2 image, or refusing downloads.
final class Replacer: ImageManagerDelegate {
    let allowDownload: Bool
    init(allowDownload: Bool = true) { self.allowDownload = allowDownload }
    func shouldDownloadImage(for url: URL) -> Bool { allowDownload }
    func transformDownloadedImage(_ image: DecodedImage, for url: URL) -> DecodedImage? {
        DecodedImage(pixels: PixelBuffer(width: 2, height: 2), format: .png)
    }
}

/// A transformer to 10×10 that, the first time its key is read, replaces itself as the
/// manager's transformer: the moment a load reads the key.
final class ReplacingTransformer: ImageTransformer {
    static let key = "replacing-10x10"
    let manager: ImageManager
    let replacement: any ImageTransformer
    private let replaced = Atomic(false)
    private let resize = ImageResizingTransformer(size: PixelSize(width: 10, height: 10), mode: .fill)

    init(manager: ImageManager, replacement: any ImageTransformer) {
        self.manager = manager
        self.replacement = replacement
    }

    var transformerKey: String {
        if !replaced.exchange(true, ordering: .relaxed) { manager.transformer = replacement }
        return Self.key
    }

    func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        resize.transform(image, forKey: key)
    }
}
