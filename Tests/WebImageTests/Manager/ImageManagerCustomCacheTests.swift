import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin
import WebImageTestSupport

/// The manager reaches its cache only through `ImageCaching`: a cache of another type
/// (here `CountingCache`, a wrapper that is not an `ImageCache`) gets the features that
/// once needed a downcast.
@Suite("ImageManager with a custom ImageCaching", .timeLimit(.minutes(1)))
struct ImageManagerCustomCacheTests {
    @Test("refreshCached revalidates through the custom cache's extended data; queryMemoryData brings disk data")
    func customCacheGetsEveryFeature() async throws {
        try await TestOrigin.with { origin in
            let directory = try TemporaryDirectory()
            var config = ImageCache.Config()
            config.coders = ManagerTestKit.coders
            let custom = CountingCache(ImageCache(namespace: "custom", directory: directory.url, config: config))
            var downloaderConfig = DownloaderConfig()
            downloaderConfig.coders = ManagerTestKit.coders
            let downloader = ImageDownloader(config: downloaderConfig)
            let manager = ImageManager(cache: custom, loader: downloader)
            let png = ManagerTestKit.png()
            let ifNoneMatch = Locked<String?>(nil)
            origin.route("/v.png") { request in
                ifNoneMatch.withLock { $0 = request.headers["if-none-match"] }
                var response = TestOrigin.Response(body: Array(png), contentType: "image/png")
                response.etag = "\"v1\""
                return response
            }
            let url = origin.url("/v.png")
            _ = try await manager.loadImage(with: url, options: [.waitStoreCache])
            #expect(custom.queries == 1)

            // refreshCached: the cached image, then a conditional request with the stored ETag; 304 ends it.
            let recorder = ResultRecorder()
            let operation = manager.loadImage(with: url, options: [.refreshCached], completed: recorder.record)
            #expect(await ManagerTestKit.eventually { operation.isFinished })
            let results = await recorder.settled()
            #expect(results.count == 1 && results.first?.cacheType == .memory)
            #expect(origin.requestCount("/v.png") == 2)
            #expect(ifNoneMatch.withLock { $0 } == "\"v1\"")

            // queryMemoryData: a memory hit that also carries the disk bytes.
            let withData = ResultRecorder()
            let second = manager.loadImage(with: url, options: [.queryMemoryData], completed: withData.record)
            #expect(await ManagerTestKit.eventually { second.isFinished })
            let hit = await withData.settled().first
            #expect(hit?.cacheType == .memory && hit?.data == png)

            await downloader.shutdown()
        }
    }
}
