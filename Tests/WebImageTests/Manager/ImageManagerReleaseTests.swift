import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin

/// Nothing keeps a load's operation alive once its last result was delivered and the
/// work it started (disk writes included) is done.
@Suite("ImageManager: operations are released", .timeLimit(.minutes(1)))
struct ImageManagerReleaseTests {
    /// A flag set from any thread.
    final class Flag: Sendable {
        private let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
        /// Sets the flag; `true` only for the call that set it.
        func set() -> Bool { value.withLock { v in defer { v = true }; return !v } }
    }

    /// The stress test's rare leak: a thumbnail is stored without data, so the cache
    /// encodes it on its decode queue; when that work had to wait for a slot, the queue
    /// kept the finished closure, and through the store the load.
    ///
    /// The cache's decode queue (one slot) is held by a gate from before the load starts
    /// until its final result arrived, so the thumbnail's encode surely waits for the slot.
    @Test("a thumbnail whose disk store waited for a decode slot lets its operation go")
    func thumbnailStoreThatWaitedForASlot() async throws {
        try await TestOrigin.with { origin in
            let dir = try TemporaryDirectory()
            let cacheQueue = DecodeQueue(maxConcurrent: 1)
            var cacheConfig = ImageCache.Config()
            cacheConfig.coders = ManagerTestKit.coders
            cacheConfig.decodeQueue = cacheQueue
            let cache = ImageCache(namespace: "release", directory: dir.url, config: cacheConfig)
            var config = DownloaderConfig()
            config.coders = ManagerTestKit.coders
            config.decodeQueue = DecodeQueue(maxConcurrent: 1)
            let downloader = ImageDownloader(config: config)
            let manager = ImageManager(cache: cache, loader: downloader)
            origin.route("/thumb.png", .init(body: Array(ManagerTestKit.png(width: 32, height: 24)), contentType: "image/png"))
            let url = origin.url("/thumb.png")

            let gate = DispatchSemaphore(value: 0)
            let opened = Flag()
            let open = { @Sendable in if opened.set() { gate.signal() } }
            cacheQueue.submit { gate.wait() }
            var context = WebImageContext()
            context.thumbnailPixelSize = PixelSize(width: 8, height: 8)
            let thumbnailPath = cache.diskCache.cachePath(forKey: try #require(manager.cacheKey(for: url, context: context)))
            let recorder = ResultRecorder()
            weak var operation: CombinedOperation?
            weak var task: ImageTask?
            do {
                // The final result comes after the thumbnail's encode was submitted.
                let started = manager.loadImage(with: url, context: context) { result in recorder.record(result) }
                operation = started
                task = started.task
            }
            let results = await recorder.wait(for: 1)
            #expect(!FileManager.default.fileExists(atPath: thumbnailPath), "the encode waits for the held slot")
            open()

            #expect(results.count == 1)
            #expect(results.first?.image?.width == 8)
            #expect(await ManagerTestKit.eventually { FileManager.default.fileExists(atPath: thumbnailPath) },
                    "the thumbnail reaches the disk once a decode slot is free")
            #expect(await ManagerTestKit.eventually { operation == nil && task == nil },
                    "the finished load's operation is still retained")
            #expect(!manager.isRunning)

            await downloader.shutdown()
        }
    }
}
