import Foundation
import Testing
@testable import WebImage
import WebImageCompat
@testable import WebImageCodecs
import WebImageTestOrigin

@Suite("ImageTask and the async API", .timeLimit(.minutes(1)))
struct ImageTaskTests {
    @Test("loadImage returns an ImageResponse with the HTTP info; a second load is a memory hit answered at once")
    func responseAndMemoryHit() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/r.png", ManagerTestKit.png(width: 20, height: 10), headers: [("X-Origin", "test")])
            let first = try await f.manager.loadImage(with: url)
            #expect(first.image.width == 20 && first.cacheType == .none && first.url == url)
            #expect(first.http?.statusCode == 200 && first.http?.headers["X-Origin"] == "test")
            #expect(first.data != nil && first.cacheKey == url.absoluteString)

            let task = f.manager.imageTask(with: url)
            // A memory hit needs no queue hop: the task is over before anyone awaits it.
            #expect(task.state == .completed)
            let second = try await task.response
            #expect(second.cacheType == .memory && second.image == first.image && second.http == nil)
            #expect(f.origin.requestCount("/r.png") == 1)
        }
    }

    @Test("a failed load throws its WebImageError with its code")
    func failureThrows() async throws {
        try await ManagerFixture.with { f in
            f.origin.route("/gone.png", .status(404))
            await #expect {
                _ = try await f.manager.loadImage(with: f.origin.url("/gone.png"))
            } throws: { error in
                (error as? WebImageError)?.code == .invalidDownloadStatusCode
            }
        }
    }

    @Test("progress reaches the whole body; previews show partial images; response is the final image")
    func progressAndPreviews() async throws {
        try await ManagerFixture.with { f in
            let (url, png) = f.serveDripping("/p.png", pieces: 5)
            let task = f.manager.imageTask(with: url, options: [.progressiveLoad])
            async let progress: [ImageTask.Progress] = task.progress.reduce(into: []) { $0.append($1) }
            async let previews: [ImageResponse] = task.previews.reduce(into: []) { $0.append($1) }
            let response = try await task.response
            let (steps, partials) = await (progress, previews)
            #expect(response.image.height == 64 && !response.isPreview)
            #expect(steps.last?.completed == png.count && steps.last?.total == png.count)
            #expect(steps.last?.fractionCompleted == 1)
            #expect(!partials.isEmpty && partials.allSatisfy { $0.isPreview && $0.data == nil })
            #expect(task.state == .completed)
        }
    }

    @Test("changing the priority of queued tasks reorders the downloader's queue, up and down")
    func priorityReorders() async throws {
        try await TestOrigin.with { origin in
            let directory = try TemporaryDirectory()
            var config = DownloaderConfig()
            config.coders = ManagerTestKit.coders
            config.maxConcurrentDownloads = 1
            let downloader = ImageDownloader(config: config)
            var cacheConfig = ImageCache.Config()
            cacheConfig.coders = ManagerTestKit.coders
            let manager = ImageManager(
                cache: ImageCache(namespace: "priority", directory: directory.url, config: cacheConfig), loader: downloader)
            for name in ["a", "b", "c", "d"] {
                origin.route("/\(name).png", .init(body: Array(ManagerTestKit.png()), contentType: "image/png"))
            }
            // Held in the queue until every priority change is made.
            downloader.isSuspended = true
            let tasks = ["a", "b", "c", "d"].map { manager.imageTask(with: origin.url("/\($0).png")) }
            #expect(await ManagerTestKit.eventually { downloader.currentDownloadCount == 4 })
            tasks[2].priority = .high       // c first
            tasks[0].priority = .veryLow    // a last
            tasks[3].priority = .low        // d before a
            #expect(tasks[2].priority == .high)
            downloader.isSuspended = false
            for task in tasks { _ = try await task.response }
            #expect(origin.requestLog == ["/c.png", "/b.png", "/d.png", "/a.png"])
            await downloader.shutdown()
        }
    }

    @Test("cancel() and cancelling the awaiting task both end the load with cancelled")
    func cancelling() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/slow.png", ManagerTestKit.png(), delay: .seconds(5))
            let task = f.manager.imageTask(with: url)
            task.cancel()
            await #expect {
                _ = try await task.response
            } throws: { error in
                (error as? WebImageError)?.code == .cancelled
            }
            #expect(task.state == .cancelled)

            let waiter = Task { try await f.manager.loadImage(with: f.serve("/slow2.png", ManagerTestKit.png(), delay: .seconds(5))) }
            #expect(await ManagerTestKit.eventually { f.origin.requestCount("/slow2.png") == 1 })
            waiter.cancel()
            let outcome = await waiter.result
            #expect(throws: WebImageError.self) { try outcome.get() }
            #expect(!f.manager.isRunning)
        }
    }

    @Test("ImageLoadResult.get(): the image of a success (nil when it carries none), the error of a failure thrown")
    func loadResultGet() throws {
        let url = try #require(URL(string: "https://example.com/a.png"))
        let image = DecodedImage(pixels: PixelBuffer(width: 3, height: 2), format: .png)
        #expect(try ImageLoadResult(url: url, image: image, cacheType: .memory).get()?.width == 3)
        #expect(try ImageLoadResult(url: url, data: Data([1])).get() == nil)
        let failure = ImageLoadResult(url: url, image: image, error: WebImageError(.badImageData, "no image"))
        #expect { try failure.get() } throws: { error in
            (error as? WebImageError)?.code == .badImageData && (error as? WebImageError)?.message == "no image"
        }
    }
}
