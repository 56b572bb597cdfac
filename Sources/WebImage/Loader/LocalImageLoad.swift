import Dispatch
import Foundation
import Synchronization

/// The shared engine of the loaders that need no network (`file:`, `data:`): read the
/// bytes off the caller's thread, report progress once, decode on the decode queue,
/// complete once, and let the token cancel at any point.
enum LocalImageLoad {
    /// Lets exactly one final callback through, and no progress after it.
    private final class Gate: Sendable {
        private let isClosed = Mutex(false)
        let queue: DispatchQueue

        init(queue: DispatchQueue) { self.queue = queue }

        func progress(_ progress: ImageLoaderProgress?, _ bytes: Int) {
            guard let progress else { return }
            isClosed.withLock { closed in if !closed { queue.async { progress(bytes, bytes) } } }
        }

        func complete(_ result: Result<ImageLoadResponse, WebImageError>, _ completed: @escaping ImageLoaderCompletion) {
            isClosed.withLock { closed in
                guard !closed else { return }
                closed = true
                queue.async { completed(result) }
            }
        }
    }

    static func start(
        url: URL,
        options: DownloaderOptions,
        context: ImageLoaderContext,
        coders: any ImageCoder,
        decodeQueue: DecodeQueue,
        callbackQueue: DispatchQueue,
        progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion,
        read: @escaping @Sendable () async throws(WebImageError) -> Data
    ) -> ImageLoadToken {
        let gate = Gate(queue: context.callbackQueue ?? callbackQueue)
        let coder = context.coders ?? coders
        let decodeOptions = context.effectiveDecodeOptions(options)
        let task = Task {
            do throws(WebImageError) {
                let data = try await read()
                guard !data.isEmpty else { throw .badImageData("\(url.scheme ?? "The") URL holds no data") }
                gate.progress(progress, data.count)
                var image: DecodedImage?
                if !options.contains(.avoidDecodeImage) {
                    image = try await decode(
                        data, options: decodeOptions, lazy: options.contains(.lazyAnimatedImage), coder: coder,
                        queue: decodeQueue)
                }
                gate.complete(.success(ImageLoadResponse(url: url, image: image, data: data, isFinished: true)), completed)
            } catch {
                gate.complete(.failure(error), completed)
            }
        }
        return ImageLoadToken(url: url) {
            task.cancel()
            gate.complete(.failure(.cancelled()), completed)
        }
    }

    /// Fails at once (on the callback queue) and returns a token with nothing to cancel.
    static func fail(
        url: URL?, _ error: WebImageError, queue: DispatchQueue, completed: @escaping ImageLoaderCompletion
    ) -> ImageLoadToken {
        queue.async { completed(.failure(error)) }
        return ImageLoadToken(url: url)
    }

    private static func decode(
        _ data: Data, options: ImageDecodeOptions, lazy: Bool, coder: any ImageCoder, queue: DecodeQueue
    ) async throws(WebImageError) -> DecodedImage {
        do {
            return try await queue.run {
                lazy ? try DecodedImage.decodingLazily(data, options: options, coder: coder)
                    : try coder.decode(data, options: options)
            }
        } catch let error as WebImageError {
            throw error
        } catch {
            throw WebImageError(.badImageData, "Decoding failed: \(error)", underlying: SendableErrorBox(error))
        }
    }
}
