import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// A body chunk takes the downloader's lock only for a transfer someone watches (a caller
/// with a progress closure or partial images); `DownloadTransfer.isWatched` says which.
@Suite("ImageDownloader: only watched transfers report their chunks", .timeLimit(.minutes(1)))
struct ImageDownloaderWatchedTests {
    @Test("a transfer nobody watches is not marked; a caller with progress marks it, also as a joiner, and gets every byte reported")
    func watchedFlag() async throws {
        try await LoaderTestKit.withOrigin(LoaderTestKit.config()) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage(width: 64, height: 64)
            origin.route("/quiet.raw", .init(body: bytes, delay: .seconds(1)))
            origin.route("/joined.raw", .init(body: bytes, delay: .seconds(1)))
            origin.route("/watched.raw", .init(body: bytes, delay: .seconds(1)))
            let reports = Mutex<[String: Int]>([:])
            let watchedObserver = ImageLoadObserver(progress: { received, _ in reports.withLock { $0["watched"] = received } })
            let joinerObserver = ImageLoadObserver(progress: { received, _ in reports.withLock { $0["joiner"] = received } })
            let context = WebImageContext()
            let quiet = Task { try await downloader.loadImage(with: origin.url("/quiet.raw"), options: [.avoidDecodeImage]) }
            let joined = Task { try await downloader.loadImage(with: origin.url("/joined.raw"), options: [.avoidDecodeImage]) }
            let watched = Task {
                try await downloader.loadImage(
                    with: origin.url("/watched.raw"), options: [.avoidDecodeImage], context: context, observer: watchedObserver)
            }
            #expect(await LoaderTestKit.eventually { downloader.currentDownloadCount == 3 })
            // A second caller with progress joins the unwatched /joined.raw transfer.
            let joiner = Task {
                try await downloader.loadImage(
                    with: origin.url("/joined.raw"), options: [.avoidDecodeImage], context: context, observer: joinerObserver)
            }
            #expect(await LoaderTestKit.eventually {
                downloader.scheduler.withLock { $0.entries.values.contains { $0.callers.count == 2 } }
            })
            let flags = downloader.scheduler.withLock { s in
                Dictionary(uniqueKeysWithValues: s.entries.values.map { ($0.transfer.url.lastPathComponent, $0.transfer.isWatched) })
            }
            #expect(flags == ["quiet.raw": false, "joined.raw": true, "watched.raw": true])
            for task in [quiet, joined, watched, joiner] {
                let response = try await task.value
                #expect(response.data?.count == bytes.count)
            }
            #expect(reports.withLock { $0 } == ["watched": bytes.count, "joiner": bytes.count])
        }
    }
}
