import Dispatch
import Foundation
import Synchronization
@testable import WebImageCompat
import WebImageTestOrigin

/// A queue that knows itself: `isCurrent` is true only on it.
final class MarkedQueue: Sendable {
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Int>()
    init(_ queue: DispatchQueue) {
        self.queue = queue
        queue.setSpecific(key: key, value: 1)
    }
    convenience init(label: String) { self.init(DispatchQueue(label: label)) }
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == 1 }
}

/// The real parts the callback forms adapt: a loopback origin, a cache in a fresh
/// directory, a downloader and a manager over both, all with the real PNG coder.
final class CompatFixture: Sendable {
    let origin: TestOrigin
    let directory: URL
    let cache: ImageCache
    let downloader: ImageDownloader
    let manager: ImageManager

    private init(origin: TestOrigin, change: (inout DownloaderConfig) -> Void) throws {
        self.origin = origin
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-compat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var cacheConfig = ImageCache.Config()
        cacheConfig.coders = Self.coders
        cache = ImageCache(namespace: "compat", directory: directory, config: cacheConfig)
        var config = DownloaderConfig()
        config.coders = Self.coders
        config.downloadTimeout = 10
        change(&config)
        downloader = ImageDownloader(config: config)
        manager = ImageManager(cache: cache, loader: downloader)
    }

    /// Runs `body` with a new fixture and awaits its shutdown whether `body` returns or throws.
    static func with(
        downloader change: (inout DownloaderConfig) -> Void = { _ in }, _ body: (CompatFixture) async throws -> Void
    ) async throws {
        try await TestOrigin.with { origin in
            let fixture = try CompatFixture(origin: origin, change: change)
            try await withCleanup { try await body(fixture) } cleanup: {
                await fixture.downloader.shutdown()
                await fixture.cache.flush()
                try? FileManager.default.removeItem(at: fixture.directory)
            }
        }
    }

    /// Serves a PNG at `path` and returns its URL.
    @discardableResult
    func serve(_ path: String) -> URL {
        origin.route(path, TestOrigin.Response(body: Array(Self.png()), contentType: "image/png"))
        return origin.url(path)
    }

    static let coders = ImageCodersManager(coders: [PNGCoder()])

    /// A 16×12 PNG made with the real encoder.
    static func png() -> Data {
        let pixels = PixelBuffer(width: 16, height: 12, unsafeUninitialized: { p in
            for i in 0..<(16 * 12 * 4) { p[i] = UInt8(truncatingIfNeeded: i &* 7) }
        })
        return (try? PNGCoder().encode(DecodedImage(pixels: pixels, format: .png), as: .png, options: ImageEncodeOptions())) ?? Data()
    }

    /// A 4×4 translucent image: the cache stores it without data as a PNG, which ``coders`` encodes.
    static func image() -> DecodedImage {
        DecodedImage(pixels: PixelBuffer(width: 4, height: 4, unsafeUninitialized: { p in
            for i in 0..<64 { p[i] = 200 }
        }), format: .png)
    }
}

/// Collects what a callback delivers, with the queue check made where it ran.
final class Deliveries<Value: Sendable>: Sendable {
    private let state = Mutex<[(value: Value, onQueue: Bool)]>([])

    func record(_ value: Value, onQueue: Bool) {
        state.withLock { $0.append((value, onQueue)) }
    }

    var all: [(value: Value, onQueue: Bool)] { state.withLock { $0 } }

    /// Waits until `n` deliveries arrived, for up to 10 s: a delivery that never comes
    /// fails the test's expectations instead of hanging the run.
    func wait(for n: Int) async -> [(value: Value, onQueue: Bool)] {
        let deadline = ContinuousClock.now + .seconds(10)
        while all.count < n, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return all
    }
}
