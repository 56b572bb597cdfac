import Dispatch
import Foundation
import Testing
@testable import WebImage

/// Nothing keeps a load's operation alive once its last result was delivered and the
/// work it started (disk writes included) is done.
@Suite("ImageManager: operations are released", .timeLimit(.minutes(1)))
struct ImageManagerReleaseTests {
    /// The stress test's rare leak: a thumbnail is stored without data, so the cache
    /// encodes it on ``DecodeQueue/shared``; when that work had to wait for a slot, the
    /// queue kept the finished closure, and through the store completion the operation.
    @Test("a thumbnail whose disk store waited for a decode slot lets its operation go")
    func thumbnailStoreThatWaitedForASlot() async throws {
        let origin = try await TestOrigin.start()
        let dir = try TemporaryDirectory()
        var cacheConfig = ImageCache.Config()
        cacheConfig.coders = ManagerTestKit.coders
        let cache = ImageCache(namespace: "release", directory: dir.url, config: cacheConfig)
        var config = DownloaderConfig()
        config.coders = ManagerTestKit.coders
        // Its own queue: the download decodes while the shared one is held below.
        config.decodeQueue = DecodeQueue(maxConcurrent: 1)
        let downloader = ImageDownloader(config: config)
        let manager = ImageManager(cache: cache, loader: downloader)
        origin.route("/thumb.png", .init(body: Array(ManagerTestKit.png(width: 32, height: 24)), contentType: "image/png"))
        let url = origin.url("/thumb.png")
        var context = WebImageContext()
        context.thumbnailPixelSize = PixelSize(width: 8, height: 8)
        let thumbnailPath = cache.diskCache.cachePath(forKey: try #require(manager.cacheKey(for: url, context: context)))

        let shared = DecodeQueue.shared
        let gate = DispatchSemaphore(value: 0)
        for _ in 0..<shared.maxConcurrent { shared.submit { gate.wait() } }
        let recorder = ResultRecorder()
        weak var operation: CombinedOperation?
        do {
            let started = manager.loadImage(with: url, context: context, completed: recorder.record)
            operation = started
        }
        let results = await recorder.wait(for: 1)
        for _ in 0..<shared.maxConcurrent { gate.signal() }

        #expect(results.count == 1)
        #expect(results.first?.image?.width == 8)
        #expect(await ManagerTestKit.eventually { FileManager.default.fileExists(atPath: thumbnailPath) },
                "the thumbnail reaches the disk once a decode slot is free")
        #expect(await ManagerTestKit.eventually { operation == nil }, "the finished load's operation is still retained")
        #expect(!manager.isRunning)

        await downloader.shutdown()
        await origin.shutdown()
    }
}
