import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin

@Suite("ImageManager: download, cache hits, delivery", .timeLimit(.minutes(1)))
struct ImageManagerLoadTests {
    @Test("a download is stored; the next load is a memory hit, and after clearing memory a disk hit")
    func downloadThenHits() async throws {
        try await ManagerFixture.with { f in
            let png = ManagerTestKit.png()
            let url = f.serve("/a.png", png)

            let first = try await f.manager.loadImage(with: url, options: [.waitStoreCache])
            #expect(first.cacheType == .none)
            #expect(first.image.width == 32)
            #expect(first.data == png)
            #expect(first.cacheKey == url.absoluteString)

            let second = try await f.manager.loadImage(with: url)
            #expect(second.cacheType == .memory)
            #expect(second.image.pixels == first.image.pixels)

            f.cache.clearMemory()
            let third = try await f.manager.loadImage(with: url)
            #expect(third.cacheType == .disk)
            #expect(third.data == png)
            #expect(f.origin.requestCount("/a.png") == 1)
            #expect(!f.manager.isRunning)
        }
    }

    @Test("a nil or empty URL fails with invalidURL")
    func invalidURL() async throws {
        try await ManagerFixture.with { f in
            let results = await f.loadAll(nil)
            #expect(results.count == 1)
            #expect(results.first?.error?.code == .invalidURL)
            let empty = await f.loadAll(URL(string: ""))
            #expect(empty.first?.error?.code == .invalidURL)
        }
    }

    @Test("callbacks run on the context's queue; a memory hit is synchronous only with queryMemorySync")
    func callbackQueues() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/q.png", ManagerTestKit.png())
            _ = try await f.manager.loadImage(with: url)

            let queue = DispatchQueue(label: "test.callbacks")
            let key = DispatchSpecificKey<Int>()
            queue.setSpecific(key: key, value: 7)
            var context = WebImageContext()
            context.callbackQueue = queue
            let onQueue = Mutex<Bool?>(nil)
            let async = ResultRecorder()
            // Suspended, the queue cannot run anything, so only a synchronous delivery could be seen here.
            queue.suspend()
            f.manager.loadImage(with: url, context: context) { result in
                onQueue.withLock { $0 = DispatchQueue.getSpecific(key: key) == 7 }
                async.record(result)
            }
            #expect(async.all.isEmpty, "without queryMemorySync a memory hit is not delivered before loadImage returns")
            queue.resume()
            #expect(await async.wait(for: 1).first?.cacheType == .memory)
            #expect(onQueue.withLock { $0 } == true)

            let sync = ResultRecorder()
            f.manager.loadImage(with: url, options: [.queryMemorySync], completed: sync.record)
            #expect(sync.all.count == 1, "queryMemorySync delivers a memory hit before loadImage returns")
            #expect(sync.all.first?.cacheType == .memory)
        }
    }

    @Test("queryDiskDataSync: a disk hit completes before loadImage returns and is then in memory")
    func diskSync() async throws {
        try await ManagerFixture.with { f in
            let png = ManagerTestKit.png()
            let url = f.origin.url("/sync.png")
            try await f.cache.store(nil, data: png, forKey: url.absoluteString, cacheType: .disk)
            let recorder = ResultRecorder()
            f.manager.loadImage(with: url, options: [.queryDiskDataSync], completed: recorder.record)
            #expect(recorder.all.map(\.cacheType) == [.disk])
            #expect(recorder.all.first?.data == png)
            #expect(f.cache.imageFromMemory(forKey: url.absoluteString) != nil)
            #expect(f.origin.requestCount("/sync.png") == 0)
        }
    }

    @Test("fromCacheOnly: a miss fails with notInCache and makes no request")
    func fromCacheOnly() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/c.png", ManagerTestKit.png())
            let results = await f.loadAll(url, options: [.fromCacheOnly])
            #expect(results.map(\.error?.code) == [.notInCache])
            #expect(f.origin.requestCount("/c.png") == 0)
        }
    }

    @Test("fromLoaderOnly downloads although the image is cached")
    func fromLoaderOnly() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/l.png", ManagerTestKit.png())
            _ = try await f.manager.loadImage(with: url)
            let again = try await f.manager.loadImage(with: url, options: [.fromLoaderOnly])
            #expect(again.cacheType == .none)
            #expect(f.origin.requestCount("/l.png") == 2)
        }
    }

    @Test("cacheMemoryOnly keeps the image off the disk; waitStoreCache completes after the disk write")
    func storeTargets() async throws {
        try await ManagerFixture.with { f in
            let memoryURL = f.serve("/m.png", ManagerTestKit.png())
            _ = try await f.manager.loadImage(with: memoryURL, options: [.cacheMemoryOnly, .waitStoreCache])
            #expect(await f.cache.containsImage(forKey: memoryURL.absoluteString, cacheType: .disk) == .none)
            #expect(f.cache.imageFromMemory(forKey: memoryURL.absoluteString) != nil)

            let diskURL = f.serve("/d.png", ManagerTestKit.png())
            let onDisk = Mutex(false)
            let done = ResultRecorder()
            let path = f.cache.cachePath(forKey: diskURL.absoluteString)
            f.manager.loadImage(with: diskURL, options: [.waitStoreCache]) { result in
                onDisk.withLock { $0 = FileManager.default.fileExists(atPath: path) }
                done.record(result)
            }
            _ = await done.wait(for: 1)
            #expect(onDisk.withLock { $0 })
        }
    }

    @Test("avoidDecodeImage delivers the data without an image")
    func avoidDecode() async throws {
        try await ManagerFixture.with { f in
            let png = ManagerTestKit.png()
            let url = f.serve("/n.png", png)
            let results = await f.loadAll(url, options: [.avoidDecodeImage])
            #expect(results.last?.image == nil)
            #expect(results.last?.data == png)
            // The async API promises an image, so a data-only download is an error there.
            let fresh = f.serve("/n2.png", png)
            await #expect(throws: WebImageError.self) { try await f.manager.loadImage(with: fresh, options: [.avoidDecodeImage]) }
        }
    }

    @Test("progressiveLoad delivers partial images, never stored, then the final one; the stream yields them all")
    func progressive() async throws {
        try await ManagerFixture.with { f in
            let url = f.serveDripping("/p.png", pieces: 5).url
            let second = f.serveDripping("/p2.png", pieces: 5).url

            // What the cache holds as each partial is delivered. Callbacks run on the callback
            // queue after the pipeline has moved on, so the last partial's may find the final
            // image already stored; a partial must never be found there.
            let heldDuringPartials = Locked<[DecodedImage]>([])
            let recorder = ResultRecorder()
            f.manager.loadImage(with: url, options: [.progressiveLoad]) { [cache = f.cache] result in
                if !result.isFinished, let held = cache.imageFromMemory(forKey: url.absoluteString) {
                    heldDuringPartials.withLock { $0.append(held) }
                }
                recorder.record(result)
            }
            #expect(await ManagerTestKit.eventually { recorder.all.last?.isFinished == true })
            let results = await recorder.settled()
            #expect(results.count >= 2, "partial images arrive before the final one")
            #expect(results.last?.isFinished == true)
            #expect(results.filter { $0.isFinished }.count == 1)
            #expect(results.last?.image?.height == 64)
            #expect(results.dropLast().allSatisfy { $0.data == nil && $0.image != nil })
            let final = try #require(results.last?.image)
            #expect(heldDuringPartials.withLock { $0 }.allSatisfy { $0 == final })

            var streamed: [ImageLoadResult] = []
            for try await result in f.manager.loadImageStream(with: second, options: [.progressiveLoad]) {
                streamed.append(result)
            }
            #expect(streamed.count >= 2)
            #expect(streamed.last?.isFinished == true && streamed.last?.image?.width == 64)
        }
    }

    @Test("a stream reader that falls behind holds at most two results: partial images give way, the final one stays")
    func streamIsBounded() async throws {
        try await ManagerFixture.with { f in
            // Ten pieces: the load makes several partial images (see the test above).
            let url = f.serveDripping("/p3.png", pieces: 10).url
            let stream = f.manager.loadImageStream(with: url, options: [.progressiveLoad])
            #expect(await ManagerTestKit.eventually(20) { !f.manager.isRunning }, "the load ended unread")
            var late: [ImageLoadResult] = []
            for try await result in stream { late.append(result) }
            #expect(late.count <= 2, "\(late.count) results waited for the reader")
            #expect(late.last?.isFinished == true && late.last?.image?.width == 64)
        }
    }

    @Test("cancelAll and the end of every load leave nothing running")
    func nothingLeaks() async throws {
        try await ManagerFixture.with { f in
            let slow = f.serve("/slow.png", ManagerTestKit.png(), delay: .seconds(5))
            let recorders = (0..<3).map { _ in ResultRecorder() }
            for recorder in recorders { f.manager.loadImage(with: slow, completed: recorder.record) }
            #expect(f.manager.isRunning)
            f.manager.cancelAll()
            for recorder in recorders {
                #expect(await recorder.wait(for: 1).map(\.error?.code) == [.cancelled])
            }
            #expect(!f.manager.isRunning)
            #expect(f.manager.runningOperationCount == 0)
        }
    }
}
