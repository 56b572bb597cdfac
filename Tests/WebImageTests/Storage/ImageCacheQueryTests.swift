import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestSupport

@Suite("ImageCache: queries", .timeLimit(.minutes(2)))
struct ImageCacheQueryTests {
    let dir: TemporaryDirectory
    let cache: ImageCache

    init() throws {
        dir = try TemporaryDirectory()
        cache = ImageCacheStoreTests.makeCache(dir)
    }

    func storeEncoded(_ image: DecodedImage, forKey key: String) async throws -> Data {
        let data = try RawRGBACoder().encode(image, as: image.format, options: .init())
        try await cache.store(image, data: data, forKey: key)
        return data
    }

    @Test("memory hit, then disk hit decoded and put back in memory, then a miss")
    func memoryDiskMiss() async throws {
        let image = RawRGBACoder.image(width: 8, height: 6)
        let data = try await storeEncoded(image, forKey: "http://x/a.png")
        let memory = try await cache.queryImage(forKey: "http://x/a.png")
        #expect(memory.cacheType == .memory && memory.image == image)

        cache.clearMemory()
        let disk = try await cache.queryImage(forKey: "http://x/a.png")
        #expect(disk.cacheType == .disk)
        #expect(disk.image?.pixels == image.pixels)
        #expect(disk.data == data)
        #expect(cache.imageFromMemory(forKey: "http://x/a.png") != nil)

        let miss = try await cache.queryImage(forKey: "http://x/none.png")
        #expect(miss.cacheType == ImageCacheType.none && miss.image == nil)
    }

    @Test("memory-only misses what is only on disk; disk-only skips memory")
    func memoryOnlyAndDiskOnly() async throws {
        _ = try await storeEncoded(RawRGBACoder.image(), forKey: "k")
        #expect(try await cache.queryImage(forKey: "k", options: .queryDiskOnly).cacheType == .disk)
        cache.clearMemory()
        #expect(try await cache.queryImage(forKey: "k", options: .queryMemoryOnly).cacheType == ImageCacheType.none)
    }

    @Test("the scale comes from the key's @2x")
    func scaleFromKey() async throws {
        _ = try await storeEncoded(RawRGBACoder.image(), forKey: "http://x/icon@2x.png")
        cache.clearMemory()
        #expect(try await cache.queryImage(forKey: "http://x/icon@2x.png").image?.scale == 2)
    }

    @Test("a thumbnail query decodes from full-size data, keeps the thumbnail under its key, leaves the file alone")
    func thumbnail() async throws {
        let key = "http://x/big.png"
        let data = try await storeEncoded(RawRGBACoder.image(width: 40, height: 30), forKey: key)
        cache.clearMemory()
        let size = PixelSize(width: 10, height: 10)
        let context = WebImageContext.with { $0.thumbnailPixelSize = size }
        let result = try await cache.queryImage(forKey: key, context: context)
        #expect(result.cacheType == .disk)
        #expect(result.image?.width == 10 && result.image?.height == 8)
        let thumbKey = CacheKey.thumbnailed(key, pixelSize: size)
        #expect(cache.imageFromMemory(forKey: thumbKey)?.width == 10)
        #expect(cache.imageFromMemory(forKey: key) == nil)
        #expect(await cache.diskImageData(forKey: key) == data)
        #expect(await cache.totalDiskCount() == 1)
        #expect(try await cache.queryImage(forKey: key, context: context).cacheType == .memory)
    }

    @Test("first frame only returns one frame and does not replace the animation in memory")
    func firstFrameOnly() async throws {
        let animation = RawRGBACoder.image(frames: 3, format: .gif)
        _ = try await storeEncoded(animation, forKey: "anim.gif")
        let fromMemory = try await cache.queryImage(forKey: "anim.gif", options: .decodeFirstFrameOnly)
        #expect(fromMemory.cacheType == .memory && fromMemory.image?.frames.count == 1)
        cache.clearMemory()
        let fromDisk = try await cache.queryImage(forKey: "anim.gif", options: .decodeFirstFrameOnly)
        #expect(fromDisk.cacheType == .disk && fromDisk.image?.frames.count == 1)
        #expect(cache.imageFromMemory(forKey: "anim.gif") == nil)
        #expect(try await cache.queryImage(forKey: "anim.gif").image?.frames.count == 3)
    }

    @Test("a corrupt file is a miss and disappears")
    func corruptFile() async throws {
        let key = "http://x/corrupt.png"
        let data = try await storeEncoded(RawRGBACoder.image(), forKey: key)
        cache.clearMemory()
        try data.prefix(20).write(to: URL(fileURLWithPath: cache.cachePath(forKey: key)))
        let result = try await cache.queryImage(forKey: key)
        #expect(result.cacheType == ImageCacheType.none && result.image == nil)
        // The removal is queued on the I/O queue; this query runs after it.
        #expect(await cache.containsImage(forKey: key) == ImageCacheType.none)
        #expect(!FileManager.default.fileExists(atPath: cache.cachePath(forKey: key)))
    }

    @Test("data too large for the query's pixel limit is a miss but is kept")
    func tooLargeIsKept() async throws {
        let key = "big"
        _ = try await storeEncoded(RawRGBACoder.image(width: 20, height: 20), forKey: key)
        cache.clearMemory()
        let result = try await cache.queryImage(forKey: key, context: WebImageContext.with { $0.maxPixelCount = 100 })
        #expect(result.cacheType == ImageCacheType.none)
        #expect(await cache.containsImage(forKey: key) == .disk)
    }

    @Test("cancelling a query delivers cancelled exactly once, even when cancelled repeatedly")
    func cancelDeliversOnce() async throws {
        _ = try await storeEncoded(RawRGBACoder.image(width: 64, height: 64), forKey: "k")
        await cache.flush()
        // A cache on the same directory whose only decode slot is held, so the cancel
        // surely comes before the hit is decoded (a page-cached read needs no pool thread).
        let decodeQueue = DecodeQueue(maxConcurrent: 1)
        let cache = ImageCacheStoreTests.makeCache(dir) { $0.decodeQueue = decodeQueue }
        let calls = Mutex<[Result<ImageCacheQueryResult, WebImageError>]>([])
        let queue = DispatchQueue(label: "test.callbacks")
        // Hold every thread of the I/O pool too, for a read that does go there.
        let gate = DispatchSemaphore(value: 0)
        for _ in 0..<BlockingIOPool.shared.threadCount { BlockingIOPool.shared.submit { gate.wait() } }
        decodeQueue.submit { gate.wait() }
        let operation = cache.queryImage(forKey: "k", context: WebImageContext.with { $0.callbackQueue = queue }) { result in
            calls.withLock { $0.append(result) }
        }
        operation.cancel()
        operation.cancel()
        for _ in 0...BlockingIOPool.shared.threadCount { gate.signal() }
        #expect(operation.isCancelled && operation.isFinished)
        // Wait until the I/O pool passed the query's turn, then drain the callbacks.
        _ = try? await BlockingIOPool.shared.run {}
        _ = try? await decodeQueue.run {}
        try await Task.sleep(for: .milliseconds(50))
        await withCheckedContinuation { c in queue.async { c.resume() } }
        #expect(cache.imageFromMemory(forKey: "k") == nil)
        let delivered = calls.withLock { $0 }
        #expect(delivered.count == 1)
        if case .failure(let error) = delivered.first { #expect(error.code == .cancelled) } else { Issue.record("not cancelled") }
    }

    @Test("cancelling after the result arrived changes nothing")
    func cancelAfterFinish() async throws {
        _ = try await storeEncoded(RawRGBACoder.image(), forKey: "k")
        let calls = Mutex(0)
        let operation = cache.queryImage(forKey: "k", options: .queryMemorySync) { result in
            calls.withLock { $0 += 1 }
            #expect((try? result.get())?.cacheType == .memory)
        }
        #expect(calls.withLock { $0 } == 1)  // queryMemorySync completed before returning
        operation.cancel()
        #expect(!operation.isCancelled)
        try await Task.sleep(for: .milliseconds(50))
        #expect(calls.withLock { $0 } == 1)
    }

    @Test("the async query throws cancelled when its task is cancelled")
    func asyncHonoursTaskCancellation() async throws {
        _ = try await storeEncoded(RawRGBACoder.image(width: 64, height: 64), forKey: "k")
        cache.clearMemory()
        let cache = self.cache
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await cache.queryImage(forKey: "k")
        }
        let error = await #expect(throws: WebImageError.self) { try await task.value }
        #expect(error?.code == .cancelled)
    }

    @Test("many concurrent queries of the same disk entry all get the image")
    func concurrentQueries() async throws {
        let image = RawRGBACoder.image(width: 16, height: 16)
        _ = try await storeEncoded(image, forKey: "k")
        cache.clearMemory()
        let cache = self.cache
        let hits = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask { try await cache.queryImage(forKey: "k").image?.pixels == image.pixels }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(hits == 50)
    }
}
