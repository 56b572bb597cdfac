import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin

@Suite("ImageCachesManager: behind an ImageManager", .timeLimit(.minutes(1)))
struct ImageCachesManagerLoadTests {
    @Test("a download is stored in every member; the next loads come from the chain without a request")
    func managerUsesChain() async throws {
        let directory = try CacheChainFixture.makeDirectory()
        let origin = try await TestOrigin.start()
        var downloaderConfig = DownloaderConfig()
        downloaderConfig.coders = CompatFixture.coders
        downloaderConfig.downloadTimeout = 10
        let downloader = ImageDownloader(config: downloaderConfig)
        try await withCleanup {
            // A memory-only member in front of a disk-only one.
            let members = [(true, false), (false, true)].map { memory, disk in
                var config = ImageCache.Config()
                config.coders = CompatFixture.coders
                config.shouldCacheImagesInMemory = memory
                config.shouldUseDisk = disk
                return ImageCache(namespace: memory ? "memory" : "disk", directory: directory, config: config)
            }
            let chain = ImageCachesManager(caches: members)
            chain.promotesHits = true
            let manager = ImageManager(cache: chain, loader: downloader)
            let png = CompatFixture.png()
            origin.route("/a.png", TestOrigin.Response(body: Array(png), contentType: "image/png"))
            let url = origin.url("/a.png")
            let key = url.absoluteString

            let first = try await manager.loadImage(with: url, options: [.waitStoreCache])
            #expect(first.cacheType == .none && first.data == png)
            #expect(members[0].imageFromMemory(forKey: key) != nil)
            #expect(await members[1].diskImageData(forKey: key) == png)

            let second = try await manager.loadImage(with: url)
            #expect(second.cacheType == .memory && second.image.pixels == first.image.pixels)

            members[0].clearMemory()
            let third = try await manager.loadImage(with: url)
            #expect(third.cacheType == .disk && third.data == png)
            #expect(members[0].imageFromMemory(forKey: key) != nil)  // promoted back into the memory member
            #expect(origin.requestCount("/a.png") == 1)
        } cleanup: {
            await downloader.shutdown()
            await origin.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }
    }
}
