import Dispatch
import Foundation
import Synchronization
@testable import WebImage
@testable import WebImageCodecs

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
    let base: ImageCache
    let holdsQueries: Bool
    private let held = Mutex<[CacheQueryOperation]>([])
    private let count = Mutex(0)

    init(_ base: ImageCache, holdsQueries: Bool = false) {
        self.base = base
        self.holdsQueries = holdsQueries
    }

    var queries: Int { count.withLock { $0 } }
    /// The queries held, which finish only when cancelled.
    var heldOperations: [CacheQueryOperation] { held.withLock { $0 } }

    func queryImage(
        forKey key: String, options: ImageCacheOptions, context: ImageCacheContext,
        completion: @escaping CacheQueryOperation.Completion
    ) -> CacheQueryOperation {
        count.withLock { $0 += 1 }
        guard holdsQueries else {
            return base.queryImage(forKey: key, options: options, context: context, completion: completion)
        }
        let operation = CacheQueryOperation(callbackQueue: context.callbackQueue ?? .global(), completion: completion)
        held.withLock { $0.append(operation) }
        return operation
    }

    func imageFromMemory(forKey key: String) -> DecodedImage? { base.imageFromMemory(forKey: key) }
    func diskData(forKey key: String, completion: @escaping @Sendable (Data?) -> Void) {
        base.diskData(forKey: key, completion: completion)
    }
    func extendedData(forKey key: String, completion: @escaping @Sendable (Data?) -> Void) {
        base.extendedData(forKey: key, completion: completion)
    }
    func setExtendedData(
        _ data: Data?, forKey key: String, completion: @escaping @Sendable (Result<Void, WebImageError>) -> Void
    ) {
        base.setExtendedData(data, forKey: key, completion: completion)
    }
    func flush() async { await base.flush() }
    func store(
        _ image: DecodedImage?, data: Data?, forKey key: String, cacheType: ImageCacheType,
        completion: (@Sendable (Result<Void, WebImageError>) -> Void)?
    ) {
        base.store(image, data: data, forKey: key, cacheType: cacheType, completion: completion)
    }
    func removeImage(forKey key: String, cacheType: ImageCacheType, completion: (@Sendable () -> Void)?) {
        base.removeImage(forKey: key, cacheType: cacheType, completion: completion)
    }
    func containsImage(
        forKey key: String, cacheType: ImageCacheType, completion: @escaping @Sendable (ImageCacheType) -> Void
    ) {
        base.containsImage(forKey: key, cacheType: cacheType, completion: completion)
    }
    func clear(cacheType: ImageCacheType, completion: (@Sendable () -> Void)?) {
        base.clear(cacheType: cacheType, completion: completion)
    }
}

extension ImageCaching {
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
