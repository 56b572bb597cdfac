import Foundation
import Synchronization

/// The shared engine of the loaders that need no network (`file:`, `data:`): read the
/// bytes (off the calling task where that blocks), report progress once, decode on the
/// decode queue, and let the calling task or the observer's token cancel at any point.
enum LocalImageLoad {
    /// Loads `url` with `read`, then decodes as `options` and `context` ask.
    static func load(
        url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver,
        coders: any ImageCoder, decodeQueue: DecodeQueue,
        read: @escaping @Sendable () async throws(WebImageError) -> Data
    ) async throws(WebImageError) -> ImageLoadResponse {
        let coder = context.imageCoder ?? coders
        let decodeOptions = context.loaderDecodeOptions(options)
        return try await CancellableLoad.run(token: observer.token) { () async throws(WebImageError) -> ImageLoadResponse in
            let data = try await read()
            guard !data.isEmpty else { throw .badImageData("\(url.scheme ?? "The") URL holds no data") }
            observer.progress?(data.count, data.count)
            var image: DecodedImage?
            if !options.contains(.avoidDecodeImage) {
                image = try await decodeQueue.decode(
                    data, options: decodeOptions, lazy: options.contains(.lazyAnimatedImage), coder: coder)
            }
            return ImageLoadResponse(url: url, image: image, data: data, isFinished: true)
        }
    }
}

/// Runs a load in a task of its own so that a token's cancel ends the caller's wait at
/// once, as the calling task's cancellation does: the first of the result, the task's
/// cancellation and the token's cancel is what the caller gets.
enum CancellableLoad {
    static func run<T: Sendable>(
        token: ImageLoadToken?, _ work: @escaping @Sendable () async throws(WebImageError) -> T
    ) async throws(WebImageError) -> T {
        let slot = CancellationSlot()
        let result = await FirstOf<Result<T, WebImageError>>.value(cancelled: {
            slot.cancel()
            return .failure(.cancelled())
        }) { box in
            let task = Task {
                do throws(WebImageError) {
                    box.resume(.success(try await work()))
                } catch {
                    box.resume(.failure(error))
                }
            }
            let cancel: @Sendable () -> Void = {
                task.cancel()
                box.resume(.failure(.cancelled()))
            }
            slot.set(cancel)
            token?.onCancel(cancel)
        }
        return try result.get()
    }
}
