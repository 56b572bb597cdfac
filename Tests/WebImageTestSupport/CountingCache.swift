import Foundation
import Synchronization
import WebImage
import WebImageCompat
import WebImageCodecs

/// A real cache that counts the queries it was asked, or holds them until cancelled:
/// what no real cache shows or does on demand. Everything else goes to `base`
/// (``ForwardingCache``), its background store included.
public final class CountingCache: ForwardingCache {
    /// A query held until its task is cancelled.
    public final class HeldQuery: Sendable {
        private let state = Mutex<(cancelled: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
        public var isCancelled: Bool { state.withLock { $0.cancelled } }
        /// Marks the query cancelled (at once, inside `Task.cancel()`) and lets it end.
        func cancel() { state.withLock { s in defer { s.waiter = nil }; s.cancelled = true; return s.waiter }?.resume() }
        /// Waits until ``cancel()``.
        func wait() async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { s in
                    if !s.cancelled { s.waiter = continuation }
                    return s.cancelled
                }
                if now { continuation.resume() }
            }
        }
    }

    public let base: ImageCache
    public let holdsQueries: Bool
    private let held = Mutex<[HeldQuery]>([])
    private let count = Mutex(0)

    public init(_ base: ImageCache, holdsQueries: Bool = false) {
        self.base = base
        self.holdsQueries = holdsQueries
    }

    public var queries: Int { count.withLock { $0 } }
    /// The queries held, which end only when cancelled.
    public var heldOperations: [HeldQuery] { held.withLock { $0 } }

    public func queryImage(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) async throws(WebImageError) -> ImageCacheQueryResult {
        count.withLock { $0 += 1 }
        guard holdsQueries else { return try await base.queryImage(forKey: key, options: options, context: context) }
        let query = HeldQuery()
        held.withLock { $0.append(query) }
        // Suspended until the task is cancelled, as a stalled cache would be.
        await withTaskCancellationHandler { await query.wait() } onCancel: { query.cancel() }
        throw .cancelled("The held query was cancelled")
    }

    public func storeInBackground(
        _ image: DecodedImage?, data: Data?, extendedData: Data?, forKey key: String, cacheType: ImageCacheType
    ) {
        base.storeInBackground(image, data: data, extendedData: extendedData, forKey: key, cacheType: cacheType)
    }
}
