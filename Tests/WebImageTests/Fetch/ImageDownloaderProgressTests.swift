import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat

@Suite("ImageDownloader progress, progressive images and events", .timeLimit(.minutes(1)))
struct ImageDownloaderProgressTests {
    @Test("progress rises to the Content-Length and ends with one final report")
    func progressReachesExpected() async throws {
        let config = LoaderTestKit.config { $0.minimumProgressInterval = 0 }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage(width: 128, height: 128)
            origin.route("/p.raw", .init(body: bytes, delivery: .drip(bytes: 16 * 1024, every: .milliseconds(20))))
            let r = LoadRecorder()
            r.request(downloader, origin.url("/p.raw"))
            _ = try await r.final().get()
            let reports = r.progressReports
            #expect(reports.count >= 3)
            #expect(reports.first?.received == 0)
            #expect(reports.last?.received == bytes.count)
            #expect(reports.allSatisfy { $0.expected == bytes.count })
            #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.received < $1.received })
            #expect(!r.sawCallbackAfterFinal)
        }
    }

    @Test("minimumProgressInterval throttles: a long interval leaves only the first and the last report")
    func progressThrottled() async throws {
        let config = LoaderTestKit.config { $0.minimumProgressInterval = 60 }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage(width: 128, height: 128)
            origin.route("/t.raw", .init(body: bytes, delivery: .drip(bytes: 8 * 1024, every: .milliseconds(10))))
            let r = LoadRecorder()
            r.request(downloader, origin.url("/t.raw"))
            _ = try await r.final().get()
            let reports = r.progressReports.map(\.received)
            #expect(reports == [0, bytes.count])
        }
    }

    @Test("a chunked body without Content-Length reports expected −1")
    func progressUnknownLength() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            origin.route("/u.raw", .init(body: bytes, delivery: .chunked(pieces: 4, pause: .milliseconds(20))))
            let r = LoadRecorder()
            r.request(downloader, origin.url("/u.raw"))
            _ = try await r.final().get()
            #expect(r.progressReports.allSatisfy { $0.expected == -1 })
            #expect(r.progressReports.last?.received == bytes.count)
        }
    }

    @Test("progressive load yields at least two partial images, then a final equal to a one-shot decode")
    func progressivePartials() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage(width: 64, height: 256)
            origin.route("/prog.raw", .init(body: bytes, delivery: .chunked(pieces: 8, pause: .milliseconds(80))))
            let progressive = LoadRecorder(), plain = LoadRecorder()
            progressive.request(downloader, origin.url("/prog.raw"), options: .progressiveLoad)
            plain.request(downloader, origin.url("/prog.raw"))
            let final = try await progressive.final().get()
            let partials = progressive.partials
            #expect(partials.count >= 2)
            #expect(partials.allSatisfy { $0.isIncremental && $0.width == 64 && $0.height == 256 })
            #expect(final.isFinished)
            #expect(final.image?.isIncremental == false)
            let oneShot = try LoaderTestKit.coders.decode(Data(bytes), options: .init())
            #expect(final.image == oneShot)
            #expect(final.image?.pixels == pixels)
            #expect(!progressive.sawCallbackAfterFinal)
            _ = try await plain.final().get()
            #expect(plain.partials.isEmpty)
        }
    }

    @Test("progressive JPEG from the corpus yields partial images, then the one-shot decode")
    func progressiveJPEG() async throws {
        let data = try Corpus.data("jpeg/jpeg-decoder/tower_progressive.jpg")
        let config = LoaderTestKit.config { $0.coders = ImageCodersManager.shared }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            origin.route("/tower.jpg", .init(
                body: Array(data), contentType: "image/jpeg", delivery: .chunked(pieces: 12, pause: .milliseconds(80))))
            let r = LoadRecorder()
            r.request(downloader, origin.url("/tower.jpg"), options: .progressiveLoad)
            let final = try await r.final().get()
            #expect(r.partials.count >= 2)
            #expect(r.partials.allSatisfy { $0.isIncremental })
            #expect(final.image == (try ImageCodersManager.shared.decode(data, options: .init())))
        }
    }

    @Test("events: started, receivedResponse, finished, stopped; no finished for a failure, a 304 or an empty body")
    func events() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            origin.route("/e.raw", .init(body: bytes))
            origin.route("/gone.raw", .status(410))
            origin.route("/same.raw", .status(304))
            origin.route("/empty.raw", .init(body: []))
            let url = origin.url("/e.raw"), gone = origin.url("/gone.raw")
            let same = origin.url("/same.raw"), empty = origin.url("/empty.raw")
            let stream = downloader.events()
            _ = try await downloader.loadImage(with: url)
            _ = try? await downloader.loadImage(with: gone)
            _ = try? await downloader.loadImage(with: same)
            _ = try? await downloader.loadImage(with: empty)

            var seen: [DownloadEvent] = []
            for await event in stream {
                seen.append(event)
                if seen.count == 13 { break }
            }
            #expect(seen == [
                .started(url), .receivedResponse(url, statusCode: 200), .finished(url), .stopped(url),
                .started(gone), .receivedResponse(gone, statusCode: 410), .stopped(gone),
                .started(same), .receivedResponse(same, statusCode: 304), .stopped(same),
                .started(empty), .receivedResponse(empty, statusCode: 200), .stopped(empty),
            ])
            // Every event names the transfer's URL, whatever its kind.
            #expect(seen.map(\.url) == [url, url, url, url, gone, gone, gone, same, same, same, empty, empty, empty])
        }
    }
}
