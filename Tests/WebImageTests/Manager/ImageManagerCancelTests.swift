import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat

@Suite("ImageManager: cancelling", .timeLimit(.minutes(1)))
struct ImageManagerCancelTests {
    @Test("cancel during the disk query: exactly one cancelled callback and no request")
    func cancelDuringQuery() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/q.png", ManagerTestKit.png(width: 256, height: 256))
            try await f.cache.store(nil, data: ManagerTestKit.png(width: 256, height: 256), forKey: url.absoluteString, cacheType: .disk)
            // The query is held until it is cancelled: a disk hit the kernel has cached is read
            // on the calling task, so no busy I/O pool could keep it waiting.
            let cache = ImageManagerStallTests.StallingCache(f.cache, stalling: url.absoluteString)
            let manager = ImageManager(cache: cache, loader: f.downloader)
            let recorder = ResultRecorder()
            let operation = manager.loadImage(with: url, completed: recorder.record)
            #expect(await ManagerTestKit.eventually { cache.stalledQueries == 1 })
            operation.cancel()
            operation.cancel()
            let results = await recorder.wait(for: 1)
            #expect(await recorder.settled().count == 1)
            #expect(results.first?.error?.code == .cancelled)
            #expect(operation.isCancelled)
            #expect(f.origin.requestCount("/q.png") == 0)
            #expect(!manager.isRunning)
        }
    }

    @Test("cancel during the download: exactly one cancelled callback, the URL is not blocked")
    func cancelDuringDownload() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/slow.png", ManagerTestKit.png(), delay: .seconds(3))
            let recorder = ResultRecorder()
            let operation = f.manager.loadImage(with: url, completed: recorder.record)
            #expect(await ManagerTestKit.eventually { f.origin.requestCount("/slow.png") == 1 })
            operation.cancel()
            #expect(await recorder.wait(for: 1).first?.error?.code == .cancelled)
            #expect(await recorder.settled().count == 1)
            #expect(!f.manager.isFailedURL(url))
            #expect(await ManagerTestKit.eventually { f.downloader.currentDownloadCount == 0 })
            #expect(!f.manager.isRunning)
        }
    }

    @Test("cancelling the task of an async load cancels it")
    func asyncCancellation() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/task.png", ManagerTestKit.png(), delay: .seconds(3))
            let task = Task { try await f.manager.loadImage(with: url) }
            #expect(await ManagerTestKit.eventually { f.origin.requestCount("/task.png") == 1 })
            task.cancel()
            await #expect {
                _ = try await task.value
            } throws: { error in
                (error as? WebImageError)?.code == .cancelled
            }
            #expect(await ManagerTestKit.eventually { !f.manager.isRunning })
        }
    }

    @Test("ending a stream's iteration cancels its load")
    func streamTermination() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/stream.png", ManagerTestKit.png(), delay: .seconds(3))
            let task = Task {
                for try await _ in f.manager.loadImageStream(with: url) {}
            }
            #expect(await ManagerTestKit.eventually { f.origin.requestCount("/stream.png") == 1 })
            task.cancel()
            _ = await task.result
            #expect(await ManagerTestKit.eventually { !f.manager.isRunning })
        }
    }
}
