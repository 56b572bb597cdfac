import Foundation

/// The seam between the image manager and a cache: query, store, remove, contains, clear.
///
/// ``ImageCache`` is the implementation; tests and special setups provide their own.
/// Implementations give the callback functions; the `async` forms come from an
/// extension built on them (see `ImageCaching+Async.swift`). Completions run on the
/// implementation's stated callback queue, never inline unless asked for with
/// ``ImageCacheOptions/queryMemorySync``.
public protocol ImageCaching: Sendable {
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
