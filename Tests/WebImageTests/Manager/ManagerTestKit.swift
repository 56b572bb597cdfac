import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin
import WebImageTestSupport

/// A manager wired to real parts: a loopback ``TestOrigin``, a new ``ImageDownloader``
/// and an ``ImageCache`` in a fresh temporary directory. Always `await shutdown()`.
final class ManagerFixture: Sendable {
    let origin: TestOrigin
    let directory: TemporaryDirectory
    let cache: ImageCache
    let downloader: ImageDownloader
    let manager: ImageManager

    init(timeout: TimeInterval = 10) async throws {
        origin = try await TestOrigin.start()
        directory = try TemporaryDirectory()
        var config = ImageCache.Config()
        config.coders = ManagerTestKit.coders
        cache = ImageCache(namespace: "manager", directory: directory.url, config: config)
        var downloaderConfig = DownloaderConfig()
        downloaderConfig.coders = ManagerTestKit.coders
        downloaderConfig.downloadTimeout = timeout
        downloader = ImageDownloader(config: downloaderConfig)
        manager = ImageManager(cache: cache, loader: downloader)
    }

    /// Serves `body` as a PNG at `path` and returns its URL.
    @discardableResult
    func serve(_ path: String, _ body: Data, etag: String? = nil, headers: [(String, String)] = [], delay: Duration = .zero) -> URL {
        var response = TestOrigin.Response(body: Array(body), contentType: "image/png", headers: headers, delay: delay)
        response.etag = etag
        origin.route(path, response)
        return origin.url(path)
    }

    /// Serves a 64×64 PNG at `path` in `pieces` pieces 150 ms apart (slower than the
    /// downloader's progress interval, so a progressive load makes partial images); returns
    /// its URL and the PNG.
    @discardableResult
    func serveDripping(_ path: String, pieces: Int) -> (url: URL, png: Data) {
        let png = ManagerTestKit.png(width: 64, height: 64)
        let piece = max(1, png.count / pieces)
        origin.route(path, TestOrigin.Response(
            body: Array(png), contentType: "image/png", delivery: .drip(bytes: piece, every: .milliseconds(150))))
        return (origin.url(path), png)
    }

    /// Loads `url` with the callback API and waits for the load to end; returns every result.
    func loadAll(
        _ url: URL?, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
    ) async -> [ImageLoadResult] {
        let recorder = ResultRecorder()
        let operation = manager.loadImage(with: url, options: options, context: context, completed: recorder.record)
        _ = await ManagerTestKit.eventually { operation.isFinished }
        return await recorder.settled()
    }

    func shutdown() async {
        await downloader.shutdown()
        await origin.shutdown()
    }

    /// Runs `body` with a new fixture and awaits its shutdown whether `body` returns or throws.
    static func with(
        timeout: TimeInterval = 10, isolation: isolated (any Actor)? = #isolation, _ body: (ManagerFixture) async throws -> Void
    ) async throws {
        let fixture = try await ManagerFixture(timeout: timeout)
        try await withCleanup { try await body(fixture) } cleanup: { await fixture.shutdown() }
    }
}

/// Collects a load's results in order.
final class ResultRecorder: Sendable {
    private let results = Mutex<[ImageLoadResult]>([])

    var record: @Sendable (ImageLoadResult) -> Void { { result in self.results.withLock { $0.append(result) } } }

    var all: [ImageLoadResult] { results.withLock { $0 } }

    /// The results once no new one arrived for 100 ms.
    func settled() async -> [ImageLoadResult] {
        var count = -1
        while count != all.count {
            count = all.count
            try? await Task.sleep(for: .milliseconds(100))
        }
        return all
    }

    /// Waits until `n` results arrived (up to 5 s).
    func wait(for n: Int) async -> [ImageLoadResult] {
        _ = await ManagerTestKit.eventually { self.all.count >= n }
        return all
    }
}

enum ManagerTestKit {
    /// The real PNG and GIF coders.
    static let coders = ImageCodersManager(coders: [GIFCoder(), PNGCoder()])

    /// A PNG of `width`×`height` made with the real encoder; translucent so the cache
    /// re-encodes derived images as PNG. `seed` changes the pixels.
    static func png(width: Int = 32, height: Int = 24, seed: UInt8 = 0) -> Data {
        let pixels = PixelBuffer(width: width, height: height, unsafeUninitialized: { p in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    p[i] = UInt8(truncatingIfNeeded: x &* 7 &+ Int(seed))
                    p[i + 1] = UInt8(truncatingIfNeeded: y &* 9)
                    p[i + 2] = seed
                    p[i + 3] = 200
                }
            }
        })
        let image = DecodedImage(pixels: pixels, format: .png)
        return (try? PNGCoder().encode(image, as: .png, options: ImageEncodeOptions())) ?? Data()
    }

    /// Polls `condition` every 10 ms for up to `seconds` (the shared helper).
    static func eventually(_ seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
        await WebImageTestSupport.eventually(seconds, condition)
    }
}
