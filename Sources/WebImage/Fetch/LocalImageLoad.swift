import Foundation
import Synchronization

/// Fetch + stage B for the fetchers that need no network (`file:`, `data:`), as
/// ``ImageDownloader/loadDecoded(_:options:context:observer:partial:)`` is for http: the
/// fetcher's bytes (read off the calling task where that blocks), progress reported once,
/// then stage B's decode (``ImageStage``) on the decode queue; the calling task or the
/// observer's token may cancel at any point. There is no transfer to share, so no decode
/// is shared either, and a whole body gives no partial images.
enum LocalImageLoad {
    /// Loads `url` from `fetcher`, then decodes as `options` and `context` ask.
    static func load(
        url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver,
        coders: any ImageCoder, decodeQueue: DecodeQueue, fetcher: some ImageFetching<WebImageError>
    ) async throws(WebImageError) -> ImageLoadResponse {
        let stage = ImageStage(
            decodeQueue: decodeQueue, coder: context.imageCoder ?? coders,
            options: context.loaderDecodeOptions(options), lazy: options.contains(.lazyAnimatedImage))
        return try await CancellableLoad.run(token: observer.token) { () async throws(WebImageError) -> ImageLoadResponse in
            // A local fetcher answers a body or throws: no status, no 304.
            guard case .body(let original, _) = try await fetcher.fetch(url, validators: nil), !original.data.isEmpty else {
                throw .badImageData("\(url.scheme ?? "The") URL holds no data")
            }
            let data = original.data
            observer.progress?(data.count, data.count)
            let image = options.contains(.avoidDecodeImage) ? nil : try await stage.image(from: data)
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
