import Foundation
import Testing
@testable import WebImage
import WebImageCompat
@testable import WebImageCodecs
import WebImageTestOrigin

/// Certificates are verified by default: an HTTPS origin with a self-signed certificate
/// (made at test time) is refused with a coded error and leaves nothing in the cache;
/// `allowInvalidSSLCertificates` loads the same URL.
@Suite("Hardening: TLS certificate checks", .timeLimit(.minutes(2)))
struct TLSCertificateTests {
    @Test("a self-signed certificate fails with cannotConnect and caches nothing; allowInvalidSSLCertificates loads it")
    func selfSigned() async throws {
        try await TestOrigin.with(tls: true) { origin in
            let downloader = ImageDownloader(config: DownloaderConfig())
            let dir = try TemporaryDirectory()
            let cache = ImageCache(namespace: "tls", directory: dir.url)
            let manager = ImageManager(cache: cache, loader: downloader)
            origin.route("/a.png", .init(body: Array(ManagerTestKit.png()), contentType: "image/png"))
            let url = origin.url("/a.png")
            #expect(url.scheme == "https")
            let key = try #require(manager.cacheKey(for: url))

            let error = await #expect(throws: WebImageError.self) { try await manager.loadImage(with: url) }
            #expect(error?.code == .cannotConnect, "\(String(describing: error))")
            #expect(error?.message.contains("TLS") == true, "\(String(describing: error))")
            #expect(origin.requestCount("/a.png") == 0, "no request crossed the failed handshake")
            #expect(await cache.containsImage(forKey: key) == .none)
            #expect(await cache.totalDiskCount() == 0)

            // The failure was not a lasting block: a permitted retry loads and decodes.
            let loaded = try await manager.loadImage(with: url, options: [.allowInvalidSSLCertificates, .retryFailed])
            #expect(loaded.image.width == 32 && loaded.image.height == 24)
            #expect(origin.requestCount("/a.png") == 1)

            await downloader.shutdown()
        }
    }
}
