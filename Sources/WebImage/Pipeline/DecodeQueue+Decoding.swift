import Foundation

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
