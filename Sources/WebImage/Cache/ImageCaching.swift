import Foundation

/// The seam between the image manager and a cache: query, store, remove, contains,
/// clear, the disk data and the extended data (HTTP validators) of an entry, and flush.
///
/// ``ImageCache`` is the implementation and ``ImageCachesManager`` chains several;
/// special setups provide their own. The manager reaches its cache only through this
/// protocol, so a custom cache gets every manager feature (refreshCached revalidation,
/// queryMemoryData, the async fast path) by implementing it. Implementations give the
/// callback functions; the `async` forms come from an extension built on them (see
/// `ImageCaching+Async.swift`). Completions run on the implementation's stated callback
/// queue, never inline unless asked for with ``ImageCacheOptions/queryMemorySync`` or
/// ``ImageCacheOptions/queryDiskDataSync``.
public protocol ImageCaching: Sendable {
    /// The decoded image kept in memory for `key`, or `nil`. Runs on the caller's thread
    /// and must not block (no disk I/O): the manager's `async` API answers memory hits
    /// through it without leaving the calling task.
    func imageFromMemory(forKey key: String) -> DecodedImage?

    /// The encoded data stored on disk for `key`, or `nil`; the completion runs on the
    /// cache's callback queue.
    func diskData(forKey key: String, completion: @escaping @Sendable (Data?) -> Void)

    /// The extended data stored with `key`'s disk entry (the manager keeps HTTP
    /// validators there), or `nil`; the completion runs on the cache's callback queue.
    func extendedData(forKey key: String, completion: @escaping @Sendable (Data?) -> Void)

    /// Attaches `data` to `key`'s existing disk entry (`nil` removes it); the completion
    /// runs on the cache's callback queue.
    func setExtendedData(
        _ data: Data?, forKey key: String, completion: @escaping @Sendable (Result<Void, WebImageError>) -> Void)

    /// Returns when every store, removal and trim started before the call is done.
    func flush() async

    /// Looks `key` up: memory first, then disk (decoding and keeping the result in memory).
    ///
    /// A miss is a success with ``ImageCacheType/none``; the only failure is
    /// ``WebImageError/Code/cancelled``, delivered once when the returned operation is
    /// cancelled first.
    @discardableResult
    func queryImage(
        forKey key: String, options: ImageCacheOptions, context: ImageCacheContext,
        completion: @escaping CacheQueryOperation.Completion
    ) -> CacheQueryOperation

    /// Stores `image` and/or its encoded `data` in the caches `cacheType` names.
    ///
    /// The memory part is done when the call returns; the completion runs when the disk
    /// part is (``WebImageError/Code/cacheIOFailed`` or ``WebImageError/Code/encodingFailed``
    /// on failure).
    func store(
        _ image: DecodedImage?, data: Data?, forKey key: String, cacheType: ImageCacheType,
        completion: (@Sendable (Result<Void, WebImageError>) -> Void)?
    )

    /// Removes `key` from the caches `cacheType` names.
    func removeImage(forKey key: String, cacheType: ImageCacheType, completion: (@Sendable () -> Void)?)

    /// Where `key` is cached among those `cacheType` names: memory is reported first.
    func containsImage(
        forKey key: String, cacheType: ImageCacheType, completion: @escaping @Sendable (ImageCacheType) -> Void)

    /// Empties the caches `cacheType` names.
    func clear(cacheType: ImageCacheType, completion: (@Sendable () -> Void)?)
}
