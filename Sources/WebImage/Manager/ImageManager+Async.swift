import Foundation
import Synchronization

/// The `async` entry points; both run the same pipeline as the callback form.
extension ImageManager {
    /// Loads `url` and returns the first final result (for ``WebImageOptions/refreshCached``,
    /// the cached image; use ``loadImageStream(with:options:context:)`` to see the refresh).
    ///
    /// Cancelling the calling task cancels the load.
    ///
    /// - Throws: the load's ``WebImageError``, ``WebImageError/Code/cancelled`` when the
    ///   task was cancelled.
    public func loadImage(
        with url: URL?, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
    ) async throws(WebImageError) -> ImageLoadResult {
        let slot = OperationSlot()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ImageLoadResult, Never>) in
                let resumed = Mutex(false)
                let operation = startLoad(with: url, options: options, context: context, progress: nil) { result, isLast in
                    guard result?.isFinished ?? isLast else { return }
                    let first = resumed.withLock { done -> Bool in
                        defer { done = true }
                        return !done
                    }
                    if first { continuation.resume(returning: result ?? ImageLoadResult(url: url)) }
                }
                slot.set(operation)
            }
        } onCancel: {
            slot.cancel()
        }
        if let error = result.error { throw error }
        return result
    }

    /// Loads `url` and yields every result: partial images with
    /// ``WebImageOptions/progressiveLoad`` (`isFinished == false`), the final image, and
    /// with ``WebImageOptions/refreshCached`` a refreshed image after the cached one.
    ///
    /// The stream ends after the last result and throws the load's error. Ending the
    /// iteration (or cancelling its task) cancels the load. The load's callback queue
    /// should be serial (the default) so results arrive in order.
    public func loadImageStream(
        with url: URL?, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
    ) -> AsyncThrowingStream<ImageLoadResult, any Error> {
        AsyncThrowingStream { continuation in
            let operation = startLoad(with: url, options: options, context: context, progress: nil) { result, isLast in
                if let result {
                    if let error = result.error {
                        continuation.finish(throwing: error)
                        return
                    }
                    continuation.yield(result)
                }
                if isLast { continuation.finish() }
            }
            continuation.onTermination = { _ in operation.cancel() }
        }
    }
}
