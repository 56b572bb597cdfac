import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestSupport

@Suite("ImageCache: store and helpers", .timeLimit(.minutes(2)))
struct ImageCacheStoreTests {
    static func makeCache(_ dir: TemporaryDirectory, configure: (inout ImageCache.Config) -> Void = { _ in }) -> ImageCache {
        var config = ImageCache.Config()
        config.coders = RawRGBACoder.manager()
        configure(&config)
        return ImageCache(namespace: "test", directory: dir.url, config: config)
    }

    @Test("a stored image is in memory when store returns and on disk when it completes")
    func memoryNowDiskLater() async throws {
        let dir = try TemporaryDirectory()
        let cache = Self.makeCache(dir)
        let image = RawRGBACoder.image()
        let data = try RawRGBACoder().encode(image, as: .png, options: .init())
        let done = Mutex(false)
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            cache.store(image, data: data, forKey: "http://x/a.png") { result in
                done.withLock { $0 = true }
                c.resume(with: result)
            }
            #expect(cache.imageFromMemory(forKey: "http://x/a.png") == image)
        }
        #expect(done.withLock { $0 })
        #expect(await cache.diskImageData(forKey: "http://x/a.png") == data)
        #expect(cache.cachePath(forKey: "http://x/a.png") == dir.path + "/test/" + CacheKey.fileName(for: "http://x/a.png"))
        #expect(await cache.containsImage(forKey: "http://x/a.png") == .memory)
        cache.clearMemory()
        #expect(await cache.containsImage(forKey: "http://x/a.png") == .disk)
        #expect(await cache.totalDiskCount() == 1)
        #expect(await cache.totalDiskSize() == data.count)
        await cache.removeImage(forKey: "http://x/a.png")
        #expect(await cache.containsImage(forKey: "http://x/a.png") == ImageCacheType.none)
    }

    @Test("without data the image is encoded: PNG with alpha, JPEG opaque, animations in their own format",
          arguments: [
            (255 as UInt8, 1, ImageFormat.png, ImageFormat.jpeg),
            (128, 1, .jpeg, .png),
            (255, 3, .gif, .gif),
            (255, 3, .webp, .webp),
            (255, 3, .apng, .apng),
          ])
    func encodesWhenNoData(alpha: UInt8, frames: Int, source: ImageFormat, expected: ImageFormat) async throws {
        let dir = try TemporaryDirectory()
        let cache = Self.makeCache(dir)
        let image = RawRGBACoder.image(alpha: alpha, frames: frames, format: source)
        try await cache.store(image, forKey: "k")
        let data = try #require(await cache.diskImageData(forKey: "k"))
        let decoded = try RawRGBACoder().decode(data, options: .init())
        #expect(decoded.format == expected)
        #expect(decoded.frames.count == frames)
        #expect(decoded.pixels == image.pixels)
    }

    @Test("an image no coder can encode is reported as encodingFailed and is still in memory")
    func encodingFailureIsReported() async throws {
        let dir = try TemporaryDirectory()
        let cache = Self.makeCache(dir) { $0.coders = ImageCodersManager(coders: []) }
        let image = RawRGBACoder.image()
        let error = await #expect(throws: WebImageError.self) { try await cache.store(image, forKey: "k") }
        #expect(error?.code == .encodingFailed)
        #expect(cache.imageFromMemory(forKey: "k") == image)
        #expect(await cache.diskImageData(forKey: "k") == nil)
    }

    @Test("an encode the decode queue's full line refuses is reported, the image stays in memory, and flush still returns")
    func encodeRefusedByAFullLine() async throws {
        let dir = try TemporaryDirectory()
        let queue = DecodeQueue(maxConcurrent: 1, maxPending: 1)
        let cache = Self.makeCache(dir) { $0.decodeQueue = queue }
        let gate = DispatchSemaphore(value: 0)
        queue.submit { gate.wait() }   // running
        queue.submit {}                // waiting: the line is full
        let image = RawRGBACoder.image()
        let error = await #expect(throws: WebImageError.self) { try await cache.store(image, forKey: "k") }
        #expect(error?.code == .cancelled && error?.message.contains("line is full") == true)
        // The background form: its completion hears the refusal, and flush does not wait for it.
        let reported = await withCheckedContinuation { continuation in
            cache.storage.store(image, data: nil, extendedData: nil, forKey: "b", cacheType: .all) { continuation.resume(returning: $0) }
        }
        guard case .failure(let refused) = reported else { Issue.record("the refused encode was reported as stored"); return }
        #expect(refused.code == .cancelled && refused.message.contains("line is full"))
        cache.storeInBackground(image, data: nil, extendedData: nil, forKey: "c", cacheType: .all)
        #expect(cache.imageFromMemory(forKey: "k") == image && cache.imageFromMemory(forKey: "c") == image)
        await cache.flush()
        gate.signal()
        #expect(await cache.diskImageData(forKey: "k") == nil)
        #expect(await cache.diskImageData(forKey: "c") == nil)
    }

    @Test("ImageCache's write line is bounded by Config.maxQueuedWriteBytes: past it a store's disk part is refused, reported, and flush still returns")
    func writeLineOfTheCache() async throws {
        var config = ImageCache.Config()
        #expect(config.maxQueuedWriteBytes == 128 * 1024 * 1024)
        config.maxQueuedWriteBytes = -5
        #expect(config.maxQueuedWriteBytes == 1)
        let dir = try TemporaryDirectory()
        let cache = Self.makeCache(dir) { $0.maxQueuedWriteBytes = 100 }
        let gate = DispatchSemaphore(value: 0)
        cache.diskCache.ioQueue.async { gate.wait() }   // a stalled disk
        let image = RawRGBACoder.image()
        let first = Mutex<Result<Void, WebImageError>?>(nil)
        cache.storage.store(image, data: Data(repeating: 1, count: 60), extendedData: nil, forKey: "a", cacheType: .all) { result in
            first.withLock { $0 = result }
        }
        // 60 + 60 passes 100: refused at once, on this thread.
        let second = Mutex<Result<Void, WebImageError>?>(nil)
        cache.storage.store(image, data: Data(repeating: 2, count: 60), extendedData: nil, forKey: "b", cacheType: .all) { result in
            second.withLock { $0 = result }
        }
        guard case .failure(let refused)? = second.withLock({ $0 }) else {
            Issue.record("the write past the cache's line was queued")
            gate.signal()
            return
        }
        #expect(refused.code == .cacheIOFailed && refused.message.contains("write line is full"))
        #expect(first.withLock { $0 } == nil, "within the limit: queued")
        // The memory part of both stores happened.
        #expect(cache.imageFromMemory(forKey: "a") == image && cache.imageFromMemory(forKey: "b") == image)
        gate.signal()
        await cache.flush()
        #expect(await cache.diskImageData(forKey: "a")?.count == 60)
        #expect(await cache.diskImageData(forKey: "b") == nil)
    }

    @Test("a disk write that fails is reported as cacheIOFailed")
    func writeFailureIsReported() async throws {
        let dir = try TemporaryDirectory()
        // The cache directory path is taken by a regular file, so nothing can be created in it.
        try Data("in the way".utf8).write(to: dir.url.appendingPathComponent("test"))
        let cache = Self.makeCache(dir)
        let error = await #expect(throws: WebImageError.self) {
            try await cache.store(RawRGBACoder.image(), data: Data("x".utf8), forKey: "k")
        }
        #expect(error?.code == .cacheIOFailed)
    }

    @Test("toDisk false and shouldUseDisk false keep the disk untouched")
    func memoryOnlyStores() async throws {
        let dir = try TemporaryDirectory()
        let cache = Self.makeCache(dir)
        try await cache.store(RawRGBACoder.image(), data: Data("x".utf8), forKey: "k", toDisk: false)
        #expect(await cache.containsImage(forKey: "k") == .memory)
        cache.clearMemory()
        #expect(await cache.containsImage(forKey: "k") == ImageCacheType.none)

        let noDisk = Self.makeCache(dir) { $0.shouldUseDisk = false }
        try await noDisk.store(RawRGBACoder.image(), data: Data("x".utf8), forKey: "k")
        #expect(await noDisk.totalDiskCount() == 0)
    }

    @Test("memory limits from the config bound the memory cache; the default is Nuke's: 15 % of RAM, at most 768 MiB")
    func memoryLimits() throws {
        let dir = try TemporaryDirectory()
        let cache = Self.makeCache(dir) {
            $0.maxMemoryCount = 2
            $0.shouldUseDisk = false
        }
        for i in 0..<3 { cache.store(RawRGBACoder.image(seed: UInt8(i)), forKey: "k\(i)") }
        #expect(cache.imageFromMemory(forKey: "k0") == nil)
        #expect(cache.imageFromMemory(forKey: "k2") != nil)
        // Nuke's ImageCache default (its costLimit): 15 % of physical memory, capped at 768 MiB.
        let nuke = min(Double(ProcessInfo.processInfo.physicalMemory) * 0.15, 768 * 1024 * 1024)
        #expect(abs(Double(ImageCache.Config().maxMemoryCost) - nuke) < 100)
        #expect(ImageCache.Config().maxMemoryEntryFraction == 0.1)
        #expect(ImageCache.Config().maxDiskAge == 7 * 86400)
    }

    /// A flood of images, some over a tenth of the limit: the memory cache never holds more
    /// than its limit, and no single image over a tenth of it is kept (Nuke's entryCostLimit).
    @Test("a flood of images stays within maxMemoryCost; an image over a tenth of it is not kept")
    func memoryFlood() throws {
        let dir = try TemporaryDirectory()
        let small = RawRGBACoder.image(seed: 1)
        let limit = small.cost * 20
        let cache = Self.makeCache(dir) {
            $0.maxMemoryCost = limit
            $0.shouldUseDisk = false
        }
        for i in 0..<500 { cache.store(RawRGBACoder.image(seed: UInt8(i % 256)), forKey: "small\(i)") }
        #expect(cache.memoryCache.totalCost <= limit)
        #expect(cache.memoryCache.count == 20)
        // Three times the small one's cost: over a tenth of the limit (two small ones), refused.
        let big = RawRGBACoder.image(width: small.width * 3, height: small.height)
        #expect(big.cost > limit / 10)
        cache.store(big, forKey: "big")
        #expect(cache.imageFromMemory(forKey: "big") == nil)
        #expect(cache.imageFromMemory(forKey: "small499") != nil, "the big image flushed nothing")
    }

    @Test("clear and deleteExpiredData through the cache")
    func clearAndExpire() async throws {
        let dir = try TemporaryDirectory()
        let cache = Self.makeCache(dir) { $0.maxDiskAge = 3600 }
        try await cache.store(RawRGBACoder.image(), data: Data("a".utf8), forKey: "a")
        try await cache.store(RawRGBACoder.image(), data: Data("b".utf8), forKey: "b")
        try TemporaryDirectory.age(cache.cachePath(forKey: "a"), secondsAgo: 7200)
        await cache.deleteExpiredData()
        #expect(await cache.totalDiskCount() == 1)
        await cache.clear(cacheType: .all)
        #expect(await cache.totalDiskCount() == 0)
        #expect(cache.memoryCache.count == 0)
    }

    @Test("a disk entry is stored and read as one: its extended data attached before it appears and read from the same open file, never another write's; a replacement without any has none; no disk, no entry")
    func diskEntryAsOne() async throws {
        let dir = try TemporaryDirectory()
        let cache = Self.makeCache(dir)
        let (a, b) = (Data(repeating: 0x61, count: 40_000), Data(repeating: 0x62, count: 20_000))
        try await cache.storeDiskEntry(a, extendedData: Data("xa".utf8), forKey: "k")
        var entry = await cache.diskEntry(forKey: "k")
        #expect(entry?.data == a && entry?.extendedData == Data("xa".utf8))
        #expect(cache.imageFromMemory(forKey: "k") == nil)
        try await cache.storeDiskEntry(b, extendedData: nil, forKey: "k")
        entry = await cache.diskEntry(forKey: "k")
        #expect(entry?.data == b && entry?.extendedData == nil)
        #expect(await cache.diskEntry(forKey: "missing") == nil)

        // A writer replacing the entry while a reader reads it: each read pairs the bytes
        // with the extended data written with them (the length tells the writes apart).
        let rounds = 300
        let writer = Task {
            for i in 0..<rounds {
                let (data, tag) = i.isMultiple(of: 2) ? (a, "xa") : (b, "xb")
                try await cache.storeDiskEntry(data, extendedData: Data(tag.utf8), forKey: "race")
            }
        }
        var reads = 0, mismatched = 0
        while reads < 2_000 {
            if let read = await cache.diskEntry(forKey: "race") {
                let expected = read.data.count == a.count ? "xa" : "xb"
                if read.extendedData != Data(expected.utf8) { mismatched += 1 }
                reads += 1
            }
            await Task.yield()
        }
        try await writer.value
        #expect(mismatched == 0)

        let noDisk = Self.makeCache(try TemporaryDirectory()) { $0.shouldUseDisk = false }
        try await noDisk.storeDiskEntry(a, extendedData: Data("xa".utf8), forKey: "k")
        #expect(await noDisk.diskEntry(forKey: "k") == nil)
    }

    /// A custom cache that implements only the base requirements.
    final class BaseOnlyCache: ForwardingCache {
        let base: ImageCache
        init(_ base: ImageCache) { self.base = base }
        func queryImage(forKey key: String, options: WebImageOptions, context: WebImageContext) async throws(WebImageError) -> ImageCacheQueryResult {
            try await base.queryImage(forKey: key, options: options, context: context)
        }
    }

    @Test("a custom cache without its own disk-entry calls gets them from diskData, extendedData, store and setExtendedData")
    func diskEntryDefaults() async throws {
        let dir = try TemporaryDirectory()
        let cache = BaseOnlyCache(Self.makeCache(dir))
        try await cache.storeDiskEntry(Data("one".utf8), extendedData: Data("x1".utf8), forKey: "k")
        var entry = await cache.diskEntry(forKey: "k")
        #expect(entry?.data == Data("one".utf8) && entry?.extendedData == Data("x1".utf8))
        try await cache.storeDiskEntry(Data("two".utf8), extendedData: nil, forKey: "k")
        entry = await cache.diskEntry(forKey: "k")
        #expect(entry?.data == Data("two".utf8) && entry?.extendedData == nil)
        #expect(await cache.diskEntry(forKey: "missing") == nil)
    }

}
