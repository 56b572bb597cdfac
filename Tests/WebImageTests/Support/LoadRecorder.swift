import Foundation
import Synchronization
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin
import WebImageTestSupport

/// Records what one caller of an ``ImageLoader`` receives, and lets a test await the
/// final result.
final class LoadRecorder: Sendable {
    private struct State {
        var progress: [(received: Int, expected: Int)] = []
        var partials: [DecodedImage] = []
        var finals: [Result<ImageLoadResponse, WebImageError>] = []
        var waiters: [CheckedContinuation<Result<ImageLoadResponse, WebImageError>, Never>] = []
        /// Whether any progress or partial arrived after the final result.
        var callbackAfterFinal = false
    }
    private let state = Mutex(State())

    var progress: ImageLoaderProgress {
        { received, expected in
            self.state.withLock { s in
                if !s.finals.isEmpty { s.callbackAfterFinal = true }
                s.progress.append((received, expected))
            }
        }
    }

    var completion: ImageLoaderCompletion {
        { result in
            let waiters = self.state.withLock { s -> [CheckedContinuation<Result<ImageLoadResponse, WebImageError>, Never>] in
                if case .success(let response) = result, !response.isFinished {
                    if !s.finals.isEmpty { s.callbackAfterFinal = true }
                    if let image = response.image { s.partials.append(image) }
                    return []
                }
                s.finals.append(result)
                defer { s.waiters = [] }
                return s.waiters
            }
            for waiter in waiters { waiter.resume(returning: result) }
        }
    }

    /// The first final result, waiting for it if needed.
    func final() async -> Result<ImageLoadResponse, WebImageError> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> Result<ImageLoadResponse, WebImageError>? in
                if let first = s.finals.first { return first }
                s.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The final error, or `nil` when the load succeeded.
    func finalError() async -> WebImageError? {
        if case .failure(let error) = await final() { return error }
        return nil
    }

    var finalCount: Int { state.withLock { $0.finals.count } }
    var partials: [DecodedImage] { state.withLock { $0.partials } }
    var progressReports: [(received: Int, expected: Int)] { state.withLock { $0.progress } }
    var sawCallbackAfterFinal: Bool { state.withLock { $0.callbackAfterFinal } }

    /// Starts a load with this recorder's callbacks.
    @discardableResult
    func request(
        _ loader: any ImageLoaderCallbacks, _ url: URL?, options: WebImageOptions = [],
        context: WebImageContext = WebImageContext()
    ) -> ImageLoadToken {
        loader.requestImage(with: url, options: options, context: context, progress: progress, completed: completion)
    }
}

/// Shared setup of the loader tests.
enum LoaderTestKit {
    /// Coders holding only the raw test coder (the real ones live on other branches).
    static let coders = ImageCodersManager(coders: [RawTestCoder()])

    /// A downloader config decoding with ``coders`` and a short timeout.
    static func config(timeout: TimeInterval = 10, _ change: (inout DownloaderConfig) -> Void = { _ in }) -> DownloaderConfig {
        var config = DownloaderConfig()
        config.coders = coders
        config.downloadTimeout = timeout
        change(&config)
        return config
    }

    /// A raw test image's bytes and pixels.
    static func rawImage(width: Int = 64, height: Int = 48) -> (data: [UInt8], pixels: PixelBuffer) {
        let pixels = RawTestCoder.sample(width: width, height: height)
        return (Array(RawTestCoder.encode(pixels)), pixels)
    }

    /// Runs `body` with a started origin and a new downloader, shutting both down after.
    static func withOrigin(
        _ config: DownloaderConfig = LoaderTestKit.config(),
        _ body: (TestOrigin, ImageDownloader) async throws -> Void
    ) async throws {
        try await TestOrigin.with { origin in
            let downloader = ImageDownloader(config: config)
            try await withCleanup { try await body(origin, downloader) } cleanup: { await downloader.shutdown() }
        }
    }

    /// Polls `condition` every 10 ms for up to `seconds` (the shared helper).
    static func eventually(_ seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
        await WebImageTestSupport.eventually(seconds, condition)
    }
}
