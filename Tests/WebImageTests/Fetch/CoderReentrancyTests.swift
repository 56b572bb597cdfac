import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCompat
import WebImageTestOrigin

/// No coder runs under a library lock: a coder that calls back into the downloader while
/// it is asked about a transfer's bytes (`canDecodeIncrementally`, `makeIncrementalDecoder`,
/// `decode`) takes the scheduler's and the transfer's locks itself. Were either held around
/// the call, the `Mutex` (not recursive) would deadlock and the suite's time limit fail it.
@Suite("Coders are called outside the downloader's locks", .timeLimit(.minutes(1)))
struct CoderReentrancyTests {
    /// The raw test coder, calling into `downloader` from every call about a transfer.
    final class ReentrantCoder: ProgressiveImageCoder {
        private let inner = RawTestCoder()
        private let downloader = Mutex<ImageDownloader?>(nil)
        private let seen = Mutex<[String]>([])
        let cancelsInMakeDecoder: Bool

        init(cancelsInMakeDecoder: Bool) { self.cancelsInMakeDecoder = cancelsInMakeDecoder }

        func attach(_ downloader: ImageDownloader) { self.downloader.withLock { $0 = downloader } }
        /// Each call with the transfer count the coder read from inside it.
        var calls: [String] { seen.withLock { $0 } }

        /// Reads the downloader's state, which takes its scheduler lock.
        private func record(_ call: String) {
            let count = downloader.withLock { $0 }?.currentDownloadCount ?? -1
            seen.withLock { $0.append("\(call) \(count)") }
        }

        func canDecode(_ data: Data) -> Bool { inner.canDecode(data) }
        func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
            record("decode")
            return try inner.decode(data, options: options)
        }
        func canEncode(to format: ImageFormat) -> Bool { inner.canEncode(to: format) }
        func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
            try inner.encode(image, as: format, options: options)
        }
        func canDecodeIncrementally(_ data: Data) -> Bool {
            record("canDecodeIncrementally")
            return inner.canDecodeIncrementally(data)
        }
        func makeIncrementalDecoder(options: ImageDecodeOptions) -> any ProgressiveImageDecoder {
            record("makeIncrementalDecoder")
            // Cancelling takes the scheduler's lock and then the transfer's own.
            if cancelsInMakeDecoder { downloader.withLock { $0 }?.cancelAllDownloads() }
            return inner.makeIncrementalDecoder(options: options)
        }
    }

    @Test("a coder that reads the downloader while asked about partial and final bytes does not deadlock")
    func readsDownloaderFromCoder() async throws {
        let coder = ReentrantCoder(cancelsInMakeDecoder: false)
        let config = LoaderTestKit.config { $0.coders = ImageCodersManager(coders: [coder]) }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            coder.attach(downloader)
            let (bytes, pixels) = LoaderTestKit.rawImage(width: 64, height: 256)
            origin.route("/r.raw", .init(body: bytes, delivery: .chunked(pieces: 6, pause: .milliseconds(60))))
            let r = LoadRecorder()
            r.request(downloader, origin.url("/r.raw"), options: .progressiveLoad)
            let final = try await r.final().get()
            #expect(final.image?.pixels == pixels)
            let calls = coder.calls
            // The transfer is still registered while its coder is asked: count 1.
            #expect(calls.contains("canDecodeIncrementally 1"), "\(calls)")
            #expect(calls.contains("makeIncrementalDecoder 1"), "\(calls)")
            #expect(calls.contains("decode 1"), "\(calls)")
        }
    }

    @Test("a coder that cancels every download from makeIncrementalDecoder ends the load with cancelled")
    func cancelsFromCoder() async throws {
        let coder = ReentrantCoder(cancelsInMakeDecoder: true)
        let config = LoaderTestKit.config { $0.coders = ImageCodersManager(coders: [coder]) }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            coder.attach(downloader)
            let (bytes, _) = LoaderTestKit.rawImage(width: 64, height: 256)
            origin.route("/c.raw", .init(body: bytes, delivery: .chunked(pieces: 6, pause: .milliseconds(60))))
            let r = LoadRecorder()
            r.request(downloader, origin.url("/c.raw"), options: .progressiveLoad)
            let outcome = await r.final()
            guard case .failure(let error) = outcome else {
                Issue.record("the load was not cancelled: \(outcome)")
                return
            }
            #expect(error.code == .cancelled)
            #expect(await LoaderTestKit.eventually { downloader.currentDownloadCount == 0 })
        }
    }
}
