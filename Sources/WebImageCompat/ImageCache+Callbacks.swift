import Foundation
import WebImage

/// ``ImageCache``'s own callback forms of a store. They replace the generic adapters of
/// ``WebImageCompat/ImageCachingCallbacks`` for a store because the cache can do better than a task: the
/// memory part is done before they return, and the disk part is queued at once, so a
/// ``flush()`` right after waits for it.
extension ImageCache {
    /// Stores `image` in memory now and, with `toDisk`, its `data` on disk in the
    /// background (without `data` the image is encoded first, see
    /// ``preferredEncodingFormat(for:)``). `completion` runs on
    /// ``WebImageCompat/ImageCachingCallbacks/callbackQueue`` when the disk part is done; without one a
    /// failure is logged.
    public func store(
        _ image: DecodedImage, data: Data? = nil, forKey key: String, toDisk: Bool = true,
        completion: (@Sendable (Result<Void, WebImageError>) -> Void)? = nil
    ) {
        store(image, data: data, forKey: key, cacheType: toDisk ? .all : .memory, completion: completion)
    }

    /// ``WebImage/ImageCaching/store(_:data:forKey:cacheType:)`` with a completion on
    /// ``WebImageCompat/ImageCachingCallbacks/callbackQueue``; the memory part is done when this returns.
    public func store(
        _ image: DecodedImage?, data: Data?, forKey key: String, cacheType: ImageCacheType,
        completion: (@Sendable (Result<Void, WebImageError>) -> Void)?
    ) {
        var delivered: (@Sendable (Result<Void, WebImageError>) -> Void)?
        if let completion {
            let queue = callbackQueue
            delivered = { result in queue.async { completion(result) } }
        }
        storage.store(image, data: data, extendedData: nil, forKey: key, cacheType: cacheType, completion: delivered)
    }
}
