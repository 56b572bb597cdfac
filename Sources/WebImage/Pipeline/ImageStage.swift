import Foundation
import Synchronization

/// Stage B, images: an original's bytes become a ``WebImageCodecs/DecodedImage`` at the size
/// and with the options asked, and a body still arriving gives partial images.
///
/// One value per load: the decode queue, the coder and the decode options (thumbnail size,
/// scale, first frame only, scale-down budget) it decodes with, and whether an animation
/// becomes a lazy image. It keeps nothing: the manager stores what it returns, and partial
/// images are shown, never stored.
///
/// - **Where the work runs**: the calling task only submits and suspends; every coder call
///   (``image(from:)``'s decode, the incremental decoder of ``partialImages(of:_:)``) runs
///   on ``decodeQueue``, and the task resumes with its result on the cooperative pool.
package struct ImageStage: Sendable {
    /// Where the coder runs.
    package let decodeQueue: DecodeQueue
    package let coder: any ImageCoder
    package let options: ImageDecodeOptions
    /// Whether an animation becomes a lazy image
    /// (``WebImageCodecs/DecodedImage/decodingLazily(_:options:coder:)``).
    package let lazy: Bool

    package init(decodeQueue: DecodeQueue, coder: any ImageCoder, options: ImageDecodeOptions, lazy: Bool) {
        self.decodeQueue = decodeQueue
        self.coder = coder
        self.options = options
        self.lazy = lazy
    }

    /// The image of a whole body, decoded on ``decodeQueue`` (see
    /// ``WebImageCodecs/DecodeQueue/perform(_:)`` for cancellation).
    package func image(from data: Data) async throws(WebImageError) -> DecodedImage {
        try await decodeQueue.decode(data, options: options, lazy: lazy, coder: coder)
    }

    /// ``image(from:)``, decoded once for every load of the same body with the same
    /// options while it runs: loads that asked for one URL at once share its transfer, and
    /// here its decode. `url` is where the body came from; nil decodes alone (a coder of
    /// the load's own, which the key cannot compare).
    ///
    /// The decode runs on the first caller's task; when that caller is cancelled the
    /// longest-waiting one decodes again on its own (``SingleFlight``), so a cancelled load
    /// never fails the others.
    package func image(
        from data: Data, sharedFrom url: URL?, in decodes: SharedDecodes
    ) async throws(WebImageError) -> DecodedImage {
        guard let url else { return try await image(from: data) }
        let key = SharedDecode(url: url, data: data, options: options, lazy: lazy)
        let result: Result<DecodedImage, WebImageError>
        do throws(WaitError) {
            result = try await decodes.value(forKey: key) {
                await Result { () async throws(WebImageError) -> DecodedImage in try await image(from: data) }
            }
        } catch {
            throw .cancelled()
        }
        return try result.get()
    }

    /// Stage B's decodes that are running, one per ``SharedDecode``; an entry lives only
    /// while its decode runs, so the table holds at most one per running load.
    package typealias SharedDecodes = SingleFlight<SharedDecode, Result<DecodedImage, WebImageError>>

    /// What makes two decodes one: the same body from one fetcher and its coders, decoded
    /// with the same options. The bytes themselves are compared, so two transfers of one URL
    /// that answered differently never share.
    package struct SharedDecode: Hashable, Sendable {
        /// Where the body came from (the table is the fetcher's, so its coders decode it).
        let url: URL
        let data: Data
        let options: ImageDecodeOptions
        let lazy: Bool
    }

    /// Reads `body`'s stream of the bytes received so far and gives each partial image the
    /// progressive coder's incremental decoder makes of them to `deliver` (on the calling
    /// task), one decode at a time; returns when the stream ends or the task is cancelled.
    ///
    /// The decoder is made, on ``decodeQueue``, once the coder says the bytes so far can be
    /// decoded incrementally; a coder that is not progressive gives no partial images.
    package func partialImages(of body: BodyProgress, _ deliver: @Sendable (DecodedImage) -> Void) async {
        var decoder: (any ProgressiveImageDecoder)?
        for await data in body.stream {
            guard !Task.isCancelled else { return }
            let (coder, options, current) = (self.coder, self.options, decoder)
            let step = try? await decodeQueue.perform { () -> Result<PartialStep, WebImageError> in
                var made = current
                if made == nil, let progressive = coder as? any ProgressiveImageCoder, progressive.canDecodeIncrementally(data) {
                    made = progressive.makeIncrementalDecoder(options: options)
                }
                let image = (try? made?.decode(data, isComplete: false)) ?? nil
                return .success(PartialStep(decoder: made, image: image))
            }
            decoder = step?.decoder ?? decoder
            if let image = step?.image, !Task.isCancelled { deliver(image) }
            body.ready()
        }
    }

    private struct PartialStep: Sendable {
        var decoder: (any ProgressiveImageDecoder)?
        var image: DecodedImage?
    }
}

/// The stream of a body's bytes so far, from the fetcher to stage B's incremental decoder:
/// bounded by construction, it holds at most one set of bytes, and only while the decoder
/// is idle.
///
/// The fetcher calls ``offer(_:)`` on its own thread (for ``ImageDownloader``, the
/// transfer's event loop) with every chunk; while the decoder works on earlier bytes the
/// offer is dropped, since the next one carries all of them. So a slow decoder costs no
/// copies of the body and never delays the transfer.
package final class BodyProgress: Sendable {
    let stream: AsyncStream<Data>
    private let continuation: AsyncStream<Data>.Continuation
    private let idle = Atomic<Bool>(true)

    package init() {
        (stream, continuation) = AsyncStream.makeStream(of: Data.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The bytes received so far; returns at once, `false` when they were dropped (the
    /// reader is busy).
    @discardableResult
    package func offer(_ data: Data) -> Bool {
        guard idle.compareExchange(expected: true, desired: false, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        continuation.yield(data)
        return true
    }

    /// The reader is done with the last bytes it got.
    func ready() { idle.store(true, ordering: .releasing) }

    /// The body is complete (or the fetch failed): no more offers are read.
    package func finish() { continuation.finish() }
}

// MARK: - Decoding on the decode queue

/// The library's one way to decode (and to run any other pixel work) on a ``WebImageCodecs/DecodeQueue``:
/// the downloader's final and partial decodes, `file:` and `data:` loads, disk-cache hits,
/// lazy loads of cached originals, transforms and encodes all come through here.
extension DecodeQueue {
    /// Decodes `data` on the calling thread, timing it in
    /// `webimage_decode_duration_seconds`: eagerly, or with `lazy` an animation as a
    /// lazy image (``WebImageCodecs/DecodedImage/decodingLazily(_:options:coder:)``). Blocks: call it from
    /// this queue's threads.
    static func decodeNow(
        _ data: Data, options: ImageDecodeOptions, lazy: Bool, coder: any ImageCoder
    ) -> Result<DecodedImage, WebImageError> {
        let start = ContinuousClock.now
        defer { WebImageMetrics.record(WebImageMetrics.decodeDuration, since: start) }
        return Result { () throws(WebImageError) -> DecodedImage in
            lazy ? try DecodedImage.decodingLazily(data, options: options, coder: coder)
                : try coder.decode(data, options: options)
        }
    }

    /// Runs `work` on this queue when a slot is free and returns its result; the calling
    /// task is suspended meanwhile. A task cancelled while the work waits for a slot gets
    /// ``WebImageCodecs/WebImageError/Code/cancelled`` and the work never runs, as does work
    /// refused because the queue's line is full; work that started runs to its end.
    func perform<T: Sendable>(
        _ work: @escaping @Sendable () -> Result<T, WebImageError>
    ) async throws(WebImageError) -> T {
        do {
            return try await run { try work().get() }
        } catch let error as WebImageError {
            throw error
        } catch {
            throw .cancelled()
        }
    }

    /// ``decodeNow(_:options:lazy:coder:)`` on this queue, the calling task suspended
    /// meanwhile (see ``perform(_:)`` for cancellation).
    func decode(
        _ data: Data, options: ImageDecodeOptions, lazy: Bool, coder: any ImageCoder
    ) async throws(WebImageError) -> DecodedImage {
        try await perform { Self.decodeNow(data, options: options, lazy: lazy, coder: coder) }
    }
}
