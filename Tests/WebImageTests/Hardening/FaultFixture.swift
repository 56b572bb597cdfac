import Foundation
import NIOCore
import NIOPosix
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin

/// The real pipeline for fault tests: a loopback ``TestOrigin``, an ``ImageDownloader``
/// with the given settings, an ``ImageCache`` in a fresh directory and an ``ImageManager``
/// over both, decoding with the real coders. Always `await shutdown()`.
final class FaultFixture: Sendable {
    let origin: TestOrigin
    let directory: TemporaryDirectory
    let cache: ImageCache
    let downloader: ImageDownloader
    let manager: ImageManager

    init(_ change: (inout DownloaderConfig) -> Void = { _ in }) async throws {
        origin = try await TestOrigin.start()
        directory = try TemporaryDirectory()
        cache = ImageCache(namespace: "faults", directory: directory.url)
        var config = DownloaderConfig()
        config.downloadTimeout = 10
        change(&config)
        downloader = ImageDownloader(config: config)
        manager = ImageManager(cache: cache, loader: downloader)
    }

    /// A valid PNG of `width`×`height` made by the real encoder.
    static func png(width: Int = 48, height: Int = 32) -> [UInt8] {
        Array(ManagerTestKit.png(width: width, height: height))
    }

    /// Loads `url` through the manager and returns every result once the load ended.
    func load(_ url: URL, options: WebImageOptions = []) async -> [ImageLoadResult] {
        let recorder = ResultRecorder()
        let operation = manager.loadImage(with: url, options: options, completed: recorder.record)
        _ = await ManagerTestKit.eventually(30) { operation.isFinished }
        return await recorder.settled()
    }

    /// A loopback URL on which nothing listens (a port bound, then closed).
    static func refusedURL() async throws -> URL {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 1
        try await channel.close()
        return URL(string: "http://127.0.0.1:\(port)/image.png") ?? URL(fileURLWithPath: "/")
    }

    func shutdown() async {
        await downloader.shutdown()
        await origin.shutdown()
    }
}
