import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// Connections per host: the limit, and the clamp.
@Suite("ImageDownloader: connections per host", .timeLimit(.minutes(1)))
struct ImageDownloaderConnectionTests {
    @Test("maxConnectionsPerHost 1: four concurrent transfers share one connection, one after another")
    func perHostLimit() async throws {
        let config = LoaderTestKit.config {
            $0.maxConcurrentDownloads = 4
            $0.maxConnectionsPerHost = 1
        }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            for i in 0..<4 { origin.route("/c\(i).raw", .init(body: bytes, delay: .milliseconds(100))) }
            let start = ContinuousClock.now
            let recorders = (0..<4).map { _ in LoadRecorder() }
            for (i, recorder) in recorders.enumerated() { recorder.request(downloader, origin.url("/c\(i).raw")) }
            for recorder in recorders { _ = try await recorder.final().get() }
            #expect(origin.connectionCount == 1)
            #expect(start.duration(to: .now) >= .milliseconds(390))
        }
    }

    @Test("without a limit, concurrent transfers to one host open their own connections")
    func defaultLimit() async throws {
        try await LoaderTestKit.withOrigin(LoaderTestKit.config { $0.maxConcurrentDownloads = 4 }) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            for i in 0..<4 { origin.route("/d\(i).raw", .init(body: bytes, delay: .milliseconds(200))) }
            let recorders = (0..<4).map { _ in LoadRecorder() }
            for (i, recorder) in recorders.enumerated() { recorder.request(downloader, origin.url("/d\(i).raw")) }
            for recorder in recorders { _ = try await recorder.final().get() }
            #expect(origin.connectionCount == 4)
        }
    }

    @Test("maxConnectionsPerHost is clamped to 1…1024; nil follows maxConcurrentDownloads (at least 8)")
    func clamp() {
        var config = DownloaderConfig()
        #expect(config.effectiveConnectionsPerHost == 8)
        config.maxConcurrentDownloads = 20
        #expect(config.effectiveConnectionsPerHost == 20)
        config.maxConnectionsPerHost = 0
        #expect(config.maxConnectionsPerHost == 1)
        config.maxConnectionsPerHost = .max
        #expect(config.maxConnectionsPerHost == 1024)
        config.maxConnectionsPerHost = -5
        #expect(config.effectiveConnectionsPerHost == 1)
    }
}
