import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("ImageDownloader coalescing", .timeLimit(.minutes(1)))
struct ImageDownloaderCoalescingTests {
    @Test("100 concurrent requests for one URL make one request and deliver 100 images")
    func hundredCallersOneTransfer() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage()
            origin.route("/one.raw", .init(body: bytes, delay: .milliseconds(300)))
            let recorders = (0..<100).map { _ in LoadRecorder() }
            for recorder in recorders { recorder.request(downloader, origin.url("/one.raw")) }
            #expect(downloader.currentDownloadCount == 1)

            for recorder in recorders {
                let response = try await recorder.final().get()
                #expect(response.image?.pixels == pixels)
                #expect(response.data == Data(bytes))
            }
            #expect(origin.requestCount("/one.raw") == 1)
            #expect(recorders.allSatisfy { $0.finalCount == 1 })
            #expect(downloader.currentDownloadCount == 0)
        }
    }

    @Test("cancelling one of two callers: it gets cancelled once, the other its image")
    func cancelOneCaller() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage()
            origin.route("/slow.raw", .init(body: bytes, delay: .milliseconds(400)))
            let kept = LoadRecorder(), cancelled = LoadRecorder()
            kept.request(downloader, origin.url("/slow.raw"))
            let token = cancelled.request(downloader, origin.url("/slow.raw"))
            try await Task.sleep(for: .milliseconds(50))
            token.cancel()
            token.cancel()

            #expect(await cancelled.finalError()?.code == .cancelled)
            #expect(try await kept.final().get().image?.pixels == pixels)
            try await Task.sleep(for: .milliseconds(100))
            #expect(cancelled.finalCount == 1)
            #expect(!cancelled.sawCallbackAfterFinal)
            #expect(token.isCancelled)
            #expect(origin.requestCount("/slow.raw") == 1)
        }
    }

    @Test("cancelling the last caller stops the transfer; a new request starts a new one")
    func cancelLastCaller() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            origin.route("/drip.raw", .init(body: bytes, delivery: .drip(bytes: 512, every: .milliseconds(50))))
            let first = LoadRecorder()
            let token = first.request(downloader, origin.url("/drip.raw"))
            #expect(await LoaderTestKit.eventually { origin.requestCount("/drip.raw") == 1 })
            token.cancel()
            #expect(await first.finalError()?.code == .cancelled)
            #expect(await LoaderTestKit.eventually { downloader.currentDownloadCount == 0 })

            let second = LoadRecorder()
            second.request(downloader, origin.url("/drip.raw"))
            _ = try await second.final().get()
            #expect(origin.requestCount("/drip.raw") == 2)
        }
    }

    @Test("N callers of a failing URL each get exactly one error")
    func failingURLManyCallers() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            origin.route("/missing.raw", .init(status: 404, body: Array("no".utf8), delay: .milliseconds(200)))
            let recorders = (0..<10).map { _ in LoadRecorder() }
            for recorder in recorders { recorder.request(downloader, origin.url("/missing.raw")) }
            for recorder in recorders {
                let error = await recorder.finalError()
                #expect(error?.code == .invalidDownloadStatusCode)
                #expect(error?.httpStatusCode == 404)
            }
            try await Task.sleep(for: .milliseconds(100))
            #expect(recorders.allSatisfy { $0.finalCount == 1 })
            #expect(origin.requestCount("/missing.raw") == 1)
        }
    }

    @Test("a request after the transfer finished starts a new one")
    func requestAfterFinish() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            origin.route("/again.raw", .init(body: bytes))
            _ = try await downloader.loadImage(with: origin.url("/again.raw"))
            _ = try await downloader.loadImage(with: origin.url("/again.raw"))
            #expect(origin.requestCount("/again.raw") == 2)
        }
    }

    @Test("callers asking for different thumbnail sizes share the transfer, each gets its size")
    func perCallerDecodeSizes() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage(width: 80, height: 60)
            origin.route("/sizes.raw", .init(body: bytes, delay: .milliseconds(200)))
            let full = LoadRecorder(), small = LoadRecorder(), tiny = LoadRecorder(), dataOnly = LoadRecorder()
            full.request(downloader, origin.url("/sizes.raw"))
            small.request(downloader, origin.url("/sizes.raw"),
                          context: .with { $0.decodeOptions = .init(thumbnailPixelSize: .init(width: 40, height: 40)) })
            tiny.request(downloader, origin.url("/sizes.raw"),
                         context: .with { $0.decodeOptions = .init(thumbnailPixelSize: .init(width: 8, height: 8)) })
            dataOnly.request(downloader, origin.url("/sizes.raw"), options: .avoidDecodeImage)

            #expect(try await full.final().get().image?.pixels == pixels)
            let smallImage = try await small.final().get().image
            #expect(smallImage?.width == 40 && smallImage?.height == 30)
            let tinyImage = try await tiny.final().get().image
            #expect(tinyImage?.width == 8 && tinyImage?.height == 6)
            let data = try await dataOnly.final().get()
            #expect(data.image == nil)
            #expect(data.data == Data(bytes))
            #expect(origin.requestCount("/sizes.raw") == 1)
        }
    }

    @Test("async loadImage: cancelling the task cancels the load")
    func asyncCancellation() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            origin.route("/hang.raw", .init(body: bytes, delay: .seconds(5)))
            let url = origin.url("/hang.raw")
            let task = Task { () async throws(WebImageError) -> ImageLoadResponse in
                try await downloader.loadImage(with: url)
            }
            try await Task.sleep(for: .milliseconds(100))
            task.cancel()
            let result = await task.result
            guard case .failure(let error) = result else {
                Issue.record("expected a failure")
                return
            }
            #expect((error as? WebImageError)?.code == .cancelled)
            #expect(await LoaderTestKit.eventually { downloader.currentDownloadCount == 0 })
        }
    }
}
