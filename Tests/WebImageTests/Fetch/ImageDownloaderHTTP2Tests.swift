import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin

/// HTTP/2: over TLS the downloader takes `h2` when the origin offers it by ALPN, and
/// multiplexes concurrent transfers on one connection; an origin without it gets HTTP/1.1.
/// Both origins present a self-signed certificate, hence `allowInvalidSSLCertificates`.
@Suite("ImageDownloader: HTTP/2", .timeLimit(.minutes(1)))
struct ImageDownloaderHTTP2Tests {
    static let count = 4

    /// Loads `/w.raw`, then `/m0.raw`… concurrently (each delayed so they overlap), and
    /// checks every image decoded.
    private static func load(from origin: TestOrigin, _ downloader: ImageDownloader) async throws {
        let (bytes, pixels) = LoaderTestKit.rawImage()
        origin.route("/w.raw", .init(body: bytes))
        for i in 0..<count { origin.route("/m\(i).raw", .init(body: bytes, delay: .milliseconds(150))) }
        // One load first, so the connection exists (and its protocol is known) before the burst.
        let warmUp = LoadRecorder()
        warmUp.request(downloader, origin.url("/w.raw"), options: .allowInvalidSSLCertificates)
        #expect(try await warmUp.final().get().image?.width == pixels.width)

        let recorders = (0..<count).map { _ in LoadRecorder() }
        for (i, recorder) in recorders.enumerated() {
            recorder.request(downloader, origin.url("/m\(i).raw"), options: .allowInvalidSSLCertificates)
        }
        for recorder in recorders {
            let image = try await recorder.final().get().image
            #expect(image?.width == pixels.width && image?.height == pixels.height)
        }
    }

    @Test("an h2 origin serves every image over HTTP/2, concurrently on one connection")
    func http2() async throws {
        let origin = try await TestOrigin.start(tls: true, http2: true)
        let downloader = ImageDownloader(config: LoaderTestKit.config { $0.maxConcurrentDownloads = Self.count })
        try await withCleanup {
            #expect(origin.url("/w.raw").scheme == "https")
            try await Self.load(from: origin, downloader)
            for path in ["/w.raw"] + (0..<Self.count).map({ "/m\($0).raw" }) {
                #expect(origin.httpVersions(path) == ["HTTP/2.0"], "\(path)")
            }
            #expect(origin.http2ConnectionCount == 1)
            #expect(origin.connectionCount == 1, "the streams shared the one connection")
            #expect(origin.http2StreamCount == Self.count + 1)
            #expect(origin.peakConcurrentHTTP2Streams > 1, "the delayed transfers overlapped on the connection")
        } cleanup: {
            await downloader.shutdown()
            await origin.shutdown()
        }
    }

    @Test("an origin that offers no h2 serves the same loads over HTTP/1.1")
    func http1() async throws {
        let origin = try await TestOrigin.start(tls: true)
        let downloader = ImageDownloader(config: LoaderTestKit.config { $0.maxConcurrentDownloads = Self.count })
        try await withCleanup {
            try await Self.load(from: origin, downloader)
            for path in ["/w.raw"] + (0..<Self.count).map({ "/m\($0).raw" }) {
                #expect(origin.httpVersions(path) == ["HTTP/1.1"], "\(path)")
            }
            #expect(origin.http2ConnectionCount == 0)
            #expect(origin.http2StreamCount == 0)
            #expect(origin.connectionCount > 1, "HTTP/1.1 needs a connection per concurrent transfer")
        } cleanup: {
            await downloader.shutdown()
            await origin.shutdown()
        }
    }
}
