import Foundation
import WebImage
import WebImageCompat
import WebImageCodecs

/// The tests' shared helpers (a target of its own, so WebImageTests and WebImageCompatTests
/// use one copy).
///
/// A custom ``ImageCaching`` over an ``ImageCache``: the test writes the queries it wants
/// to watch or change, and everything else goes to `base` as it is. The queries are not
/// forwarded here on purpose: a cache that leaves `queryImageSynchronously` out keeps the
/// protocol's default (no blocking answer), which some tests rely on.
public protocol ForwardingCache: ImageCaching {
    var base: ImageCache { get }
}

extension ForwardingCache {
    public func imageFromMemory(forKey key: String) -> DecodedImage? { base.imageFromMemory(forKey: key) }
    public func diskData(forKey key: String) async -> Data? { await base.diskData(forKey: key) }
    public func extendedData(forKey key: String) async -> Data? { await base.extendedData(forKey: key) }
    public func setExtendedData(_ data: Data?, forKey key: String) async throws(WebImageError) {
        try await base.setExtendedData(data, forKey: key)
    }
    public func store(_ image: DecodedImage?, data: Data?, forKey key: String, cacheType: ImageCacheType) async throws(WebImageError) {
        try await base.store(image, data: data, forKey: key, cacheType: cacheType)
    }
    public func removeImage(forKey key: String, cacheType: ImageCacheType) async { await base.removeImage(forKey: key, cacheType: cacheType) }
    public func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        await base.containsImage(forKey: key, cacheType: cacheType)
    }
    public func clear(cacheType: ImageCacheType) async { await base.clear(cacheType: cacheType) }
    public func flush() async { await base.flush() }
}
