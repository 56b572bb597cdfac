import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin
import WebImageTestSupport

/// User code that stalls (a custom cache that never answers, a coder stuck in a call)
/// holds up only the loads that wait for it: the manager and the downloader hold no lock
/// and no queue while any cache, coder or hook runs.
@Suite("ImageManager: a stalled cache or coder blocks no other load", .timeLimit(.minutes(1)))
struct ImageManagerStallTests {
    /// An ``ImageCache`` whose queries for `stalledKey` suspend until released (or cancelled).
    final class StallingCache: ForwardingCache {
        let base: ImageCache
        let stalledKey: String
        private let released = Mutex(false)
        private let stalled = Mutex(0)

        init(_ base: ImageCache, stalling key: String) {
            self.base = base
            stalledKey = key
        }

        var stalledQueries: Int { stalled.withLock { $0 } }
        func release() { released.withLock { $0 = true } }

        func queryImage(
            forKey key: String, options: WebImageOptions, context: WebImageContext
        ) async throws(WebImageError) -> ImageCacheQueryResult {
            if key == stalledKey {
                stalled.withLock { $0 += 1 }
                while !released.withLock({ $0 }), !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            }
            return try await base.queryImage(forKey: key, options: options, context: context)
        }
    }

    /// The PNG coder, stuck in every call about data whose size is `stalledSize`
    /// (`canDecodeIncrementally`, `decode`) until released.
    final class StallingCoder: ProgressiveImageCoder {
        let stalledSize: Int
        private let inner = PNGCoder()
        private let gate = DispatchSemaphore(value: 0)
        private let stalls = Mutex(0)

        init(stalling size: Int) { stalledSize = size }

        var stalledCalls: Int { stalls.withLock { $0 } }
        func release() { for _ in 0..<16 { gate.signal() } }

        private func stallIfAsked(_ data: Data) {
            guard data.count == stalledSize else { return }
            stalls.withLock { $0 += 1 }
            gate.wait()
            gate.signal()
        }

        func canDecode(_ data: Data) -> Bool { inner.canDecode(data) }
        func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
            stallIfAsked(data)
            return try inner.decode(data, options: options)
        }
        func canEncode(to format: ImageFormat) -> Bool { inner.canEncode(to: format) }
        func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
            try inner.encode(image, as: format, options: options)
        }
        func canDecodeIncrementally(_ data: Data) -> Bool {
            stallIfAsked(data)
            return inner.canDecodeIncrementally(data)
        }
        func makeIncrementalDecoder(options: ImageDecodeOptions) -> any ProgressiveImageDecoder {
            inner.makeIncrementalDecoder(options: options)
        }
    }

    @Test("a custom cache that never answers one query holds up that load only")
    func stalledCache() async throws {
        try await TestOrigin.with { origin in
            let directory = try TemporaryDirectory()
            var config = ImageCache.Config()
            config.coders = ManagerTestKit.coders
            let stalledURL = origin.url("/stalled.png"), freeURL = origin.url("/free.png")
            for path in ["/stalled.png", "/free.png"] {
                origin.route(path, .init(body: Array(ManagerTestKit.png()), contentType: "image/png"))
            }
            let cache = StallingCache(ImageCache(namespace: "stall", directory: directory.url, config: config),
                                      stalling: stalledURL.absoluteString)
            var downloaderConfig = DownloaderConfig()
            downloaderConfig.coders = ManagerTestKit.coders
            let downloader = ImageDownloader(config: downloaderConfig)
            let manager = ImageManager(cache: cache, loader: downloader)

            // Given a load whose cache query never returns (through both APIs)
            let stalledTask = manager.imageTask(with: stalledURL)
            let stalledOperation = manager.loadImage(with: stalledURL) { _ in }
            #expect(await ManagerTestKit.eventually { cache.stalledQueries == 2 })
            // When other loads run meanwhile, then they complete, again and again
            for round in 0..<3 {
                let response = try await manager.loadImage(with: freeURL, options: [.fromLoaderOnly])
                #expect(response.image.width == 32, "round \(round)")
            }
            let results = await ImageManagerStallTests.load(manager, freeURL)
            #expect(results.first?.error == nil)
            #expect(stalledTask.state == .running && !stalledOperation.isFinished)

            cache.release()
            #expect(try await stalledTask.response.image.width == 32)
            #expect(await ManagerTestKit.eventually { stalledOperation.isFinished })
            await downloader.shutdown()
        }
    }

    @Test("a coder stuck in a call (partial or final decode) holds up that load only")
    func stalledCoder() async throws {
        try await TestOrigin.with { origin in
            let directory = try TemporaryDirectory()
            let stuckPNG = ManagerTestKit.png(width: 40, height: 40), freePNG = ManagerTestKit.png(width: 16, height: 16)
            let coder = StallingCoder(stalling: stuckPNG.count)
            let coders = ImageCodersManager(coders: [coder])
            var config = ImageCache.Config()
            config.coders = coders
            var downloaderConfig = DownloaderConfig()
            downloaderConfig.coders = coders
            // One slot may be taken by the stuck coder; the other loads need the rest.
            downloaderConfig.decodeQueue = DecodeQueue(maxConcurrent: 4)
            let downloader = ImageDownloader(config: downloaderConfig)
            let manager = ImageManager(cache: ImageCache(namespace: "coder", directory: directory.url, config: config), loader: downloader)
            origin.route("/stuck.png", .init(body: Array(stuckPNG), contentType: "image/png"))
            for i in 0..<4 { origin.route("/free\(i).png", .init(body: Array(freePNG), contentType: "image/png")) }

            // Given a progressive load whose coder is stuck (in canDecodeIncrementally, then decode)
            let stuck = manager.imageTask(with: origin.url("/stuck.png"), options: [.progressiveLoad])
            #expect(await ManagerTestKit.eventually { coder.stalledCalls >= 1 })
            // and a second caller joining its transfer meanwhile
            let joined = manager.imageTask(with: origin.url("/stuck.png"), options: [.progressiveLoad])
            // When other loads run through the same manager and downloader, then they complete
            for i in 0..<4 {
                let response = try await manager.loadImage(with: origin.url("/free\(i).png"), options: [.progressiveLoad])
                #expect(response.image.width == 16)
            }
            #expect(stuck.state == .running && joined.state == .running)
            coder.release()
            #expect(try await stuck.response.image.width == 40)
            #expect(try await joined.response.image.width == 40)
            #expect(origin.requestCount("/stuck.png") == 1)
            await downloader.shutdown()
        }
    }

    /// The callback form's results for `url`, once the load ended.
    static func load(_ manager: ImageManager, _ url: URL) async -> [ImageLoadResult] {
        let recorder = ResultRecorder()
        let operation = manager.loadImage(with: url, completed: recorder.record)
        _ = await ManagerTestKit.eventually { operation.isFinished }
        return await recorder.wait(for: 1)
    }
}
