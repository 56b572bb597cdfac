import Foundation
import NIOPosix
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat

@Suite("ImageDownloader decoding", .timeLimit(.minutes(1)))
struct ImageDownloaderDecodingTests {
    /// Wraps the raw test coder and records, for every decode call, whether it ran on
    /// a NIO event loop thread.
    private final class ThreadCheckingCoder: ProgressiveImageCoder {
        let onEventLoop = Locked<[Bool]>([])
        private let inner = RawTestCoder()

        private func record() {
            let isLoop = MultiThreadedEventLoopGroup.currentEventLoop != nil
            onEventLoop.withLock { $0.append(isLoop) }
        }

        func canDecode(_ data: Data) -> Bool { inner.canDecode(data) }
        func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
            record()
            return try inner.decode(data, options: options)
        }
        func canEncode(to format: ImageFormat) -> Bool { false }
        func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
            try inner.encode(image, as: format, options: options)
        }
        func canDecodeIncrementally(_ data: Data) -> Bool { inner.canDecodeIncrementally(data) }
        func makeIncrementalDecoder(options: ImageDecodeOptions) -> any ProgressiveImageDecoder {
            Decoder(owner: self, inner: inner.makeIncrementalDecoder(options: options))
        }

        private final class Decoder: ProgressiveImageDecoder {
            let owner: ThreadCheckingCoder
            let inner: any ProgressiveImageDecoder
            init(owner: ThreadCheckingCoder, inner: any ProgressiveImageDecoder) {
                self.owner = owner
                self.inner = inner
            }
            func decode(_ data: Data, isComplete: Bool) throws -> DecodedImage? {
                owner.record()
                return try inner.decode(data, isComplete: isComplete)
            }
        }
    }

    @Test("partial and final decodes run off the NIO event loops")
    func decodesOffEventLoop() async throws {
        let coder = ThreadCheckingCoder()
        let config = LoaderTestKit.config { $0.coders = ImageCodersManager(coders: [coder]) }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage(width: 64, height: 128)
            origin.route("/d.raw", .init(body: bytes, delivery: .chunked(pieces: 4, pause: .milliseconds(50))))
            let r = LoadRecorder()
            r.request(downloader, origin.url("/d.raw"), options: .progressiveLoad)
            _ = try await r.final().get()
            let calls = coder.onEventLoop.withLock { $0 }
            #expect(calls.count >= 2)
            #expect(!calls.contains(true))
        }
    }

    @Test("a context's coders replace the downloader's; allowInvalidSSLCertificates uses its own client")
    func contextCodersAndInsecureClient() async throws {
        let config = LoaderTestKit.config { $0.coders = ImageCodersManager() }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage()
            origin.route("/c.raw", .init(body: bytes))
            let none = LoadRecorder()
            none.request(downloader, origin.url("/c.raw"))
            #expect(await none.finalError()?.code == .badImageData)

            let context = WebImageContext.with { $0.imageCoder = LoaderTestKit.coders }
            let response = try await downloader.loadImage(
                with: origin.url("/c.raw"), options: .allowInvalidSSLCertificates, context: context)
            #expect(response.image?.pixels == pixels)
        }
    }

    @Test("a custom callback queue receives every callback")
    func callbackQueue() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            origin.route("/q.raw", .init(body: bytes))
            let queue = DispatchQueue(label: "test.callbacks")
            let key = DispatchSpecificKey<Bool>()
            queue.setSpecific(key: key, value: true)
            let onQueue = Locked<[Bool]>([])
            let response = try await downloader.loadImage(
                with: origin.url("/q.raw"), context: .with { $0.callbackQueue = queue },
                progress: { _, _ in onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: key) == true) } })
            #expect(response.isFinished)
            let seen = onQueue.withLock { $0 }
            #expect(!seen.isEmpty && !seen.contains(false))
        }
    }
}
