import Foundation

extension ImageCaching {
    /// ``queryImage(forKey:options:context:completion:)`` as an `async` call.
    ///
    /// Cancelling the task cancels the query.
    ///
    /// - Throws: ``WebImageError/Code/cancelled`` when the task was cancelled first.
    public func queryImage(
        forKey key: String, options: ImageCacheOptions = [], context: ImageCacheContext = .init()
    ) async throws -> ImageCacheQueryResult {
        let slot = CancellationSlot()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // A task cancelled before it got here does not start the query at all.
                if slot.isCancelled {
                    continuation.resume(throwing: WebImageError.cancelled("The cache query was cancelled"))
                    return
                }
                let operation = queryImage(forKey: key, options: options, context: context) {
                    continuation.resume(with: $0)
                }
                slot.set { operation.cancel() }
            }
        } onCancel: {
            slot.cancel()
        }
    }

    /// ``store(_:data:forKey:cacheType:completion:)`` as an `async` call that returns
    /// when the disk part is written.
    ///
    /// - Throws: ``WebImageError/Code/cacheIOFailed`` or ``WebImageError/Code/encodingFailed``.
    public func store(_ image: DecodedImage?, data: Data?, forKey key: String, cacheType: ImageCacheType) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            store(image, data: data, forKey: key, cacheType: cacheType) { continuation.resume(with: $0) }
        }
    }

    /// ``removeImage(forKey:cacheType:completion:)`` as an `async` call.
    public func removeImage(forKey key: String, cacheType: ImageCacheType) async {
        await withCheckedContinuation { continuation in
            removeImage(forKey: key, cacheType: cacheType) { continuation.resume() }
        }
    }

    /// ``containsImage(forKey:cacheType:completion:)`` as an `async` call.
    public func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        await withCheckedContinuation { continuation in
            containsImage(forKey: key, cacheType: cacheType) { continuation.resume(returning: $0) }
        }
    }

    /// ``clear(cacheType:completion:)`` as an `async` call.
    public func clear(cacheType: ImageCacheType) async {
        await withCheckedContinuation { continuation in
            clear(cacheType: cacheType) { continuation.resume() }
        }
    }
}
