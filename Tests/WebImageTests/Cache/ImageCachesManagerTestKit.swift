import Dispatch
import Foundation
import Synchronization
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat

/// Three real ``ImageCache`` members, each in its own directory, chained in order.
final class CacheChainFixture: Sendable {
    let directory: TemporaryDirectory
    let members: [ImageCache]
    let chain: ImageCachesManager

    /// `configure` adjusts member `i`'s config (for example to make it disk-only).
    init(count: Int = 3, configure: (Int, inout ImageCache.Config) -> Void = { _, _ in }) throws {
        let directory = try TemporaryDirectory()
        members = (0..<count).map { index in
            var config = ImageCache.Config()
            config.coders = RawRGBACoder.manager()
            configure(index, &config)
            return ImageCache(namespace: "member\(index)", directory: directory.url, config: config)
        }
        self.directory = directory
        chain = ImageCachesManager(caches: members)
    }

    /// Stores `image` with its encoded data in member `index` only.
    @discardableResult
    func put(_ image: DecodedImage, forKey key: String, in index: Int, cacheType: ImageCacheType = .all) async throws -> Data {
        let data = try RawRGBACoder().encode(image, as: image.format, options: .init())
        try await members[index].store(image, data: data, forKey: key, cacheType: cacheType)
        return data
    }

    /// Where member `index` holds `key`: in memory (`imageFromMemory`) and on disk (its file).
    func holds(_ key: String, in index: Int) async -> (memory: Bool, disk: Bool) {
        let member = members[index]
        return (member.imageFromMemory(forKey: key) != nil, await member.diskImageData(forKey: key) != nil)
    }
}

/// A real cache that counts the queries it was asked, or holds them until cancelled:
/// what no real cache shows or does on demand.
final class CountingCache: ImageCaching {
    /// A query held until its task is cancelled.
    final class HeldQuery: Sendable {
        private let state = Mutex<(cancelled: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
        var isCancelled: Bool { state.withLock { $0.cancelled } }
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

    let base: ImageCache
    let holdsQueries: Bool
    private let held = Mutex<[HeldQuery]>([])
    private let count = Mutex(0)

    init(_ base: ImageCache, holdsQueries: Bool = false) {
        self.base = base
        self.holdsQueries = holdsQueries
    }

    var queries: Int { count.withLock { $0 } }
    /// The queries held, which end only when cancelled.
    var heldOperations: [HeldQuery] { held.withLock { $0 } }

    func queryImage(
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

    func imageFromMemory(forKey key: String) -> DecodedImage? { base.imageFromMemory(forKey: key) }
    func diskData(forKey key: String) async -> Data? { await base.diskData(forKey: key) }
    func extendedData(forKey key: String) async -> Data? { await base.extendedData(forKey: key) }
    func setExtendedData(_ data: Data?, forKey key: String) async throws(WebImageError) {
        try await base.setExtendedData(data, forKey: key)
    }
    func flush() async { await base.flush() }
    func store(_ image: DecodedImage?, data: Data?, forKey key: String, cacheType: ImageCacheType) async throws(WebImageError) {
        try await base.store(image, data: data, forKey: key, cacheType: cacheType)
    }
    func storeInBackground(
        _ image: DecodedImage?, data: Data?, extendedData: Data?, forKey key: String, cacheType: ImageCacheType
    ) {
        base.storeInBackground(image, data: data, extendedData: extendedData, forKey: key, cacheType: cacheType)
    }
    func removeImage(forKey key: String, cacheType: ImageCacheType) async {
        await base.removeImage(forKey: key, cacheType: cacheType)
    }
    func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        await base.containsImage(forKey: key, cacheType: cacheType)
    }
    func clear(cacheType: ImageCacheType) async { await base.clear(cacheType: cacheType) }
}

extension ImageCachingCallbacks {
    /// ``diskData(forKey:completion:)`` as an `async` call.
    func awaitDiskData(forKey key: String) async -> Data? {
        await withCheckedContinuation { c in diskData(forKey: key) { c.resume(returning: $0) } }
    }

    /// ``extendedData(forKey:completion:)`` as an `async` call.
    func awaitExtendedData(forKey key: String) async -> Data? {
        await withCheckedContinuation { c in extendedData(forKey: key) { c.resume(returning: $0) } }
    }

    /// ``setExtendedData(_:forKey:completion:)`` as an `async` call.
    func awaitSetExtendedData(_ data: Data?, forKey key: String) async -> Result<Void, WebImageError> {
        await withCheckedContinuation { c in setExtendedData(data, forKey: key) { c.resume(returning: $0) } }
    }
}
