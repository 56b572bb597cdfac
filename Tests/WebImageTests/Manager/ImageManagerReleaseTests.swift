import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
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
    /// encodes it on ``DecodeQueue/shared``; when that work had to wait for a slot, the
    /// queue kept the finished closure, and through the store completion the operation.
    ///
    /// The shared slots are held only from the moment the download's result is queued
    /// for the pipeline until the load's final callback, so other tests' decodes barely wait.
    @Test("a thumbnail whose disk store waited for a decode slot lets its operation go")
    func thumbnailStoreThatWaitedForASlot() async throws {
        let origin = try await TestOrigin.start()
        let dir = try TemporaryDirectory()
        var cacheConfig = ImageCache.Config()
        cacheConfig.coders = ManagerTestKit.coders
        let cache = ImageCache(namespace: "release", directory: dir.url, config: cacheConfig)
        var config = DownloaderConfig()
        config.coders = ManagerTestKit.coders
        config.decodeQueue = DecodeQueue(maxConcurrent: 1)
        let downloader = ImageDownloader(config: config)
        let manager = ImageManager(cache: cache, loader: downloader)
        origin.route("/thumb.png", .init(body: Array(ManagerTestKit.png(width: 32, height: 24)), contentType: "image/png"))
        let url = origin.url("/thumb.png")

        // The load's pipeline queue stops when the response arrives, so the download's
        // result waits there until the shared decode slots are taken.
        let pipeline = DispatchQueue(label: "ImageManagerReleaseTests.pipeline")
        let pipelineGate = DispatchSemaphore(value: 0)
        let stopped = Flag()
        let center = NotificationCenter.default
        let observers = [
            center.addObserver(forName: ImageDownloader.downloadReceivedResponseNotification, object: downloader, queue: nil) { _ in
                pipeline.async { pipelineGate.wait() }
            },
            center.addObserver(forName: ImageDownloader.downloadStoppedNotification, object: downloader, queue: nil) { _ in
                _ = stopped.set()
            },
        ]
        defer { for observer in observers { center.removeObserver(observer) } }

        let shared = DecodeQueue.shared
        let sharedGate = DispatchSemaphore(value: 0)
        let opened = Flag()
        let open = { @Sendable in
            guard opened.set() else { return }
            for _ in 0..<shared.maxConcurrent { sharedGate.signal() }
        }
        var context = WebImageContext()
        context.thumbnailPixelSize = PixelSize(width: 8, height: 8)
        context.callbackQueue = pipeline
        let thumbnailPath = cache.diskCache.cachePath(forKey: try #require(manager.cacheKey(for: url, context: context)))
        let recorder = ResultRecorder()
        weak var operation: CombinedOperation?
        do {
            // The final result comes after the thumbnail's encode was submitted.
            let started = manager.loadImage(with: url, context: context) { result in
                recorder.record(result)
                open()
            }
            operation = started
        }
        #expect(await ManagerTestKit.eventually { stopped.isSet })
        for _ in 0..<shared.maxConcurrent { shared.submit { sharedGate.wait() } }
        pipelineGate.signal()
        let results = await recorder.wait(for: 1)
        open()

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
