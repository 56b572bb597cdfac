import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageCompat
@testable import WebImageCodecs
import WebImageTestOrigin

/// Stage B, images, on its own: a whole body decodes with the stage's options; a body's
/// bytes so far give partial images through the progressive coder's incremental decoder;
/// the stream between the fetcher and that decoder holds one set of bytes at most.
@Suite("ImageStage: decode at size, partial images from the bytes so far", .timeLimit(.minutes(1)))
struct ImageStageTests {
    static func stage(_ options: ImageDecodeOptions = ImageDecodeOptions(), lazy: Bool = false,
                      coder: any ImageCoder = ImageCodersManager.shared) -> ImageStage {
        ImageStage(decodeQueue: DecodeQueue(maxConcurrent: 1), coder: coder, options: options, lazy: lazy)
    }

    @Test("a whole body: a thumbnail at the size asked, the first frame only, a lazy animation")
    func wholeBody() async throws {
        // 512×512 (the corpus manifest): a 64×64 thumbnail keeping the aspect ratio is 64×64.
        let jpeg = try Corpus.data("jpeg/jpeg-decoder/tower_progressive.jpg")
        var thumbnail = ImageDecodeOptions()
        thumbnail.thumbnailPixelSize = PixelSize(width: 64, height: 40)
        let small = try await Self.stage(thumbnail).image(from: jpeg)
        #expect(small.width == 40 && small.height == 40)

        // 100×100, 4 frames (the manifest).
        let gif = try Corpus.data("gif/gif-test-suite/animated_loop.gif")
        #expect(try await Self.stage().image(from: gif).frameCount == 4)
        var first = ImageDecodeOptions()
        first.firstFrameOnly = true
        #expect(try await Self.stage(first).image(from: gif).frames.count == 1)
        let lazy = try await Self.stage(lazy: true).image(from: gif)
        #expect(lazy.animation != nil && lazy.frameCount == 4)

        await #expect(throws: WebImageError.self) { try await Self.stage().image(from: Data("not an image".utf8)) }
    }

    @Test("partial images: the incremental decoder reads the bytes so far, then the stream ends")
    func partials() async throws {
        let jpeg = try Corpus.data("jpeg/jpeg-decoder/tower_progressive.jpg")
        let body = BodyProgress()
        let stage = Self.stage()
        let partials = Mutex<[DecodedImage]>([])
        let reader = Task { await stage.partialImages(of: body) { image in partials.withLock { $0.append(image) } } }
        let pieces = 12
        for piece in 1..<pieces {
            // Each piece waits until the reader took the last one.
            let prefix = Data(jpeg.prefix(jpeg.count * piece / pieces))
            while !body.offer(prefix) { try await Task.sleep(for: .milliseconds(2)) }
        }
        body.finish()
        await reader.value
        let images = partials.withLock { $0 }
        #expect(images.count >= 2)
        #expect(images.allSatisfy { $0.isIncremental && $0.width == 512 && $0.height == 512 })
    }

    /// Counts calls and holds the first one on its thread until released: a coder stalled
    /// where the test wants it.
    final class FirstCallHold: Sendable {
        private let gate = DispatchSemaphore(value: 0)
        private let state = Mutex((calls: 0, waiting: false))
        var calls: Int { state.withLock { $0.calls } }
        var isWaiting: Bool { state.withLock { $0.waiting } }
        func release() { gate.signal() }

        /// Counts this call; the first waits here until ``release()``.
        func enter() {
            let first = state.withLock { s in
                s.calls += 1
                s.waiting = s.calls == 1
                return s.waiting
            }
            if first {
                gate.wait()
                state.withLock { $0.waiting = false }
            }
        }
    }

    /// A progressive coder that never decodes incrementally and holds its first call until
    /// released, counting the calls.
    final class GatedCoder: ProgressiveImageCoder {
        let hold = FirstCallHold()
        var calls: Int { hold.calls }
        var isWaiting: Bool { hold.isWaiting }
        func release() { hold.release() }

        func canDecodeIncrementally(_ data: Data) -> Bool {
            hold.enter()
            return false
        }
        func makeIncrementalDecoder(options: ImageDecodeOptions) -> any ProgressiveImageDecoder {
            ImageCodersManager.shared.makeIncrementalDecoder(options: options)
        }
        func canDecode(_ data: Data) -> Bool { false }
        func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
            throw .badImageData("not used")
        }
        func canEncode(to format: ImageFormat) -> Bool { false }
        func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
            throw .badImageData("not used")
        }
    }

    @Test("while the reader decodes, offers are dropped: the stream holds one set of bytes at most")
    func bounded() async throws {
        let coder = GatedCoder()
        let body = BodyProgress()
        let stage = Self.stage(coder: coder)
        let reader = Task { await stage.partialImages(of: body) { _ in } }
        #expect(body.offer(Data(count: 10)))
        #expect(await ManagerTestKit.eventually { coder.isWaiting })
        for size in 11...60 { #expect(!body.offer(Data(count: size)), "offered while the reader is busy") }
        coder.release()
        #expect(await ManagerTestKit.eventually { body.offer(Data(count: 100)) }, "taken once the reader is done")
        body.finish()
        await reader.value
        #expect(coder.calls == 2, "the dropped offers never reached the coder")
    }
}

/// Stage B's shared decodes: loads of one body with the same options decode it once.
@Suite("ImageStage: one decode per body and options", .timeLimit(.minutes(1)))
struct ImageStageSharedDecodeTests {
    /// The real PNG coder, counting its decodes; the first waits until released.
    final class HoldingCoder: ImageCoder {
        let hold = ImageStageTests.FirstCallHold()
        var decodes: Int { hold.calls }
        var isWaiting: Bool { hold.isWaiting }
        func release() { hold.release() }

        func canDecode(_ data: Data) -> Bool { PNGCoder().canDecode(data) }
        func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
            hold.enter()
            return try PNGCoder().decode(data, options: options)
        }
        func canEncode(to format: ImageFormat) -> Bool { false }
        func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
            throw .badImageData("not used")
        }
    }

    @Test("callers of one body and options share the running decode; other bytes or options decode on their own")
    func sharedDecode() async throws {
        let coder = HoldingCoder()
        let stage = ImageStageTests.stage(coder: coder)
        let decodes = ImageStage.SharedDecodes()
        let png = ManagerTestKit.png(width: 20, height: 10)
        let body = URL(string: "https://images.test/a.png")
        let first = Task { try await stage.image(from: png, sharedFrom: body, in: decodes) }
        #expect(await ManagerTestKit.eventually { coder.isWaiting })
        let second = Task { try await stage.image(from: png, sharedFrom: body, in: decodes) }
        #expect(await ManagerTestKit.eventually { decodes.waitingCount == 1 }, "the second caller joined the first's decode")
        coder.release()
        let (a, b) = (try await first.value, try await second.value)
        #expect(a.width == 20 && a.height == 10 && a == b)
        #expect(coder.decodes == 1 && decodes.runningCount == 0)

        // Other bytes of the same URL, and the same bytes at another size, decode again.
        _ = try await stage.image(from: ManagerTestKit.png(width: 20, height: 10, seed: 9), sharedFrom: body, in: decodes)
        var thumbnail = ImageDecodeOptions()
        thumbnail.thumbnailPixelSize = PixelSize(width: 10, height: 5)
        let small = try await ImageStageTests.stage(thumbnail, coder: coder).image(from: png, sharedFrom: body, in: decodes)
        #expect(small.width == 10 && small.height == 5)
        #expect(coder.decodes == 3)
    }

    @Test("a manager: two loads of one URL at once make one request and one decode")
    func managerLoads() async throws {
        let coder = HoldingCoder()
        let origin = try await TestOrigin.start()
        let directory = try TemporaryDirectory()
        var config = DownloaderConfig()
        config.coders = ImageCodersManager(coders: [coder])
        let downloader = ImageDownloader(config: config)
        let manager = ImageManager(cache: ImageCache(namespace: "shared-decode", directory: directory.url), loader: downloader)
        try await withCleanup {
            let png = ManagerTestKit.png(width: 24, height: 12)
            origin.route("/one.png", TestOrigin.Response(body: Array(png), contentType: "image/png"))
            let url = origin.url("/one.png")
            let first = Task { try await manager.loadImage(with: url) }
            #expect(await ManagerTestKit.eventually { coder.isWaiting })
            let second = Task { try await manager.loadImage(with: url) }
            #expect(await ManagerTestKit.eventually { downloader.sharedDecodes.waitingCount == 1 }, "the second load joined the decode")
            coder.release()
            let (a, b) = (try await first.value, try await second.value)
            #expect(a.image.width == 24 && b.image.width == 24)
            #expect(coder.decodes == 1, "one decode for both loads")
            #expect(origin.requestCount("/one.png") == 1, "one transfer for both loads")
        } cleanup: {
            await downloader.shutdown()
            await origin.shutdown()
        }
    }

    /// A downloader whose coder is a `HoldingCoder`, and an origin serving one PNG of
    /// `width`×`height` at `url`; both are shut down after `body`, however it ends.
    static func withHeldDownloader(
        width: Int, height: Int,
        _ body: (_ coder: HoldingCoder, _ downloader: ImageDownloader, _ url: URL, _ origin: TestOrigin) async throws -> Void
    ) async throws {
        let coder = HoldingCoder()
        var config = DownloaderConfig()
        config.coders = ImageCodersManager(coders: [coder])
        let downloader = ImageDownloader(config: config)
        try await TestOrigin.with { origin in
            origin.route("/held.png", TestOrigin.Response(body: Array(ManagerTestKit.png(width: width, height: height)),
                                                          contentType: "image/png"))
            try await withCleanup {
                try await body(coder, downloader, origin.url("/held.png"), origin)
            } cleanup: {
                await downloader.shutdown()
            }
        }
    }

    /// The downloader on its own, no manager: its `ImageLoader` form is fetch + stage B.
    @Test("the downloader's own loads of one URL at once: one request, one decode, the body held while it runs")
    func downloaderLoads() async throws {
        try await Self.withHeldDownloader(width: 24, height: 12) { coder, downloader, url, origin in
            let first = Task { try await downloader.loadImage(with: url) }
            #expect(await ManagerTestKit.eventually { coder.isWaiting })
            #expect(downloader.currentDownloadCount == 1, "the decoding caller holds the finished body")
            let second = Task { try await downloader.loadImage(with: url) }
            #expect(await ManagerTestKit.eventually { downloader.sharedDecodes.waitingCount == 1 },
                    "the second caller got the held body and joined the decode")
            coder.release()
            let (a, b) = (try await first.value, try await second.value)
            #expect(a.image?.width == 24 && b.image?.width == 24 && a.data == b.data)
            #expect(coder.decodes == 1, "one decode for both callers")
            #expect(origin.requestCount("/held.png") == 1, "one transfer for both callers")
            #expect(await ManagerTestKit.eventually { downloader.currentDownloadCount == 0 }, "the body is let go after the decode")
        }
    }

    @Test("the callback form decodes in stage B too: a request while another's decode runs gets the held body")
    func callbackLoads() async throws {
        try await Self.withHeldDownloader(width: 16, height: 8) { coder, downloader, url, origin in
            let results = Mutex<[Result<ImageLoadResponse, WebImageError>]>([])
            let record: @Sendable (Result<ImageLoadResponse, WebImageError>) -> Void = { r in results.withLock { $0.append(r) } }
            downloader.join(url, options: [], context: WebImageContext(), observer: ImageLoadObserver(), completion: record)
            #expect(await ManagerTestKit.eventually { coder.isWaiting })
            downloader.join(url, options: [], context: WebImageContext(), observer: ImageLoadObserver(), completion: record)
            coder.release()
            #expect(await ManagerTestKit.eventually { results.withLock { $0.count } == 2 })
            let widths = results.withLock { $0.map { (try? $0.get())?.image?.width } }
            #expect(widths == [16, 16])
            #expect(origin.requestCount("/held.png") == 1, "the second request joined the finished transfer")
        }
    }

    @Test("a load whose token is cancelled while its body decodes ends with cancelled; the other caller gets its image")
    func tokenCancelledDuringDecode() async throws {
        try await Self.withHeldDownloader(width: 8, height: 8) { coder, downloader, url, _ in
            let token = ImageLoadToken(url: url)
            let cancelled = Task {
                try await downloader.loadImage(
                    with: url, options: [], context: WebImageContext(), observer: ImageLoadObserver(token: token))
            }
            #expect(await ManagerTestKit.eventually { coder.isWaiting })
            let other = Task { try await downloader.loadImage(with: url) }
            #expect(await ManagerTestKit.eventually { downloader.sharedDecodes.waitingCount == 1 })
            token.cancel()
            coder.release()
            let code: WebImageError.Code?
            do {
                _ = try await cancelled.value
                code = nil
            } catch {
                code = (error as? WebImageError)?.code
            }
            #expect(code == .cancelled)
            let width = try await other.value.image?.width
            #expect(width == 8)
        }
    }
}
