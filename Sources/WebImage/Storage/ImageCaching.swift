import Foundation

/// The seam between the image manager and a cache: query, store, remove, contains,
/// clear, the disk data and the extended data (HTTP validators) of an entry, and flush.
///
/// The manager's own cache (the two tiers of
/// ``ImageManager/init(memoryCache:diskCache:loader:decodeQueue:failedURLPolicy:)``) is the
/// implementation; WebImageCompat's `ImageCache` is a façade over it, its `ImageCachesManager`
/// chains several, and special setups provide their own. The manager reaches its cache only through this
/// protocol, so a custom cache gets every manager feature (refreshCached revalidation,
/// HTTP freshness, queryMemoryData) by implementing it.
///
/// The requirements are `async` and never block the calling task: a cache suspends
/// while its disk or network work runs elsewhere. A cache that stalls holds up only the
/// loads waiting for it; the manager holds no lock and no queue while it waits.
///
/// The protocol takes no queue and no completion handler: the callback forms
/// (`queryImage(forKey:options:context:completion:)` and the others, delivered on a
/// `DispatchQueue`) belong to ``WebImageCompat/ImageCachingCallbacks``, an adapter over these
/// requirements in the WebImageCompat target. The one thing that adapter cannot build from
/// `async` requirements, SDWebImage's blocking query (``WebImageOptions/queryDiskDataSync``),
/// is the synchronous requirement ``queryImageSynchronously(forKey:options:context:)``,
/// which a cache that cannot answer without suspending leaves at its default, `nil`.
public protocol ImageCaching: Sendable {
    /// The decoded image kept in memory for `key`, or `nil`. Runs on the caller's thread
    /// and must not block (no disk I/O): the manager answers memory hits through it
    /// without leaving the calling task.
    func imageFromMemory(forKey key: String) -> DecodedImage?

    /// The whole query of ``queryImage(forKey:options:context:)`` answered on the calling
    /// thread, blocking it on the disk read and the decode; or `nil` when this cache
    /// cannot answer without suspending. The default is `nil`: callers then take what
    /// ``imageFromMemory(forKey:)`` has and await ``queryImage(forKey:options:context:)``.
    ///
    /// Only the callback forms call it, for ``WebImageOptions/queryDiskDataSync`` and
    /// ``WebImageOptions/queryMemoryDataSync`` (on the manager's callback form too), which
    /// SDWebImage code asks for explicitly. Never call it from
    /// `async` code: it blocks the thread.
    func queryImageSynchronously(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) -> ImageCacheQueryResult?

    /// Looks `key` up: memory first, then disk (decoding and keeping the result in memory).
    ///
    /// `options` are the manager's ``WebImageOptions``; a query reads only its bits
    /// (``WebImageOptions/queryMemoryOnly``, ``WebImageOptions/queryDiskOnly``,
    /// ``WebImageOptions/decodeFirstFrameOnly``, ``WebImageOptions/queryMemoryData`` and
    /// the synchronous ones), and the manager passes no others.
    ///
    /// `context` is the one ``WebImageContext`` of the load; a query reads its decoding
    /// fields (``WebImageContext/thumbnailPixelSize``, ``WebImageContext/preserveAspectRatio``,
    /// ``WebImageContext/scaleDownLimitBytes``, ``WebImageContext/maxPixelCount``,
    /// ``WebImageContext/imageScaleFactor``) through
    /// ``WebImageContext/decodeOptions(forKey:firstFrameOnly:)`` and
    /// ``WebImageContext/memoryKey(forKey:)``.
    ///
    /// A miss is a success with ``ImageCacheType/none``.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/cancelled`` when the task was cancelled first.
    func queryImage(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) async throws(WebImageError) -> ImageCacheQueryResult

    /// The encoded data stored on disk for `key`, or `nil`.
    func diskData(forKey key: String) async -> Data?

    /// The extended data stored with `key`'s disk entry (the manager keeps HTTP
    /// validators there), or `nil`.
    func extendedData(forKey key: String) async -> Data?

    /// Attaches `data` to `key`'s existing disk entry (`nil` removes it).
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/cacheIOFailed`` when there is no such entry or it
    ///   cannot be written.
    func setExtendedData(_ data: Data?, forKey key: String) async throws(WebImageError)

    /// `key`'s disk entry: its encoded data and the extended data stored with it, or `nil`
    /// on a miss.
    ///
    /// The default reads ``diskData(forKey:)``, then ``extendedData(forKey:)``: a store
    /// between the two can pair new bytes with old extended data. The manager's own cache
    /// reads both from one open file (its extended attribute; a file system without them
    /// keeps a sidecar file, read right after).
    func diskEntry(forKey key: String) async -> (data: Data, extendedData: Data?)?

    /// Writes `data` as `key`'s disk entry with `extendedData` (`nil`: none) and returns
    /// when it is written.
    ///
    /// The default runs ``store(_:data:forKey:cacheType:)`` for the disk, then
    /// ``setExtendedData(_:forKey:)``: a reader between the two sees the new bytes without
    /// their extended data. The manager's own cache attaches it before the entry appears.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/cacheIOFailed`` when it cannot be written.
    func storeDiskEntry(_ data: Data, extendedData: Data?, forKey key: String) async throws(WebImageError)

    /// Stores `image` and/or its encoded `data` in the caches `cacheType` names and
    /// returns when the disk part is written.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/cacheIOFailed`` or ``WebImageCodecs/WebImageError/Code/encodingFailed``.
    func store(
        _ image: DecodedImage?, data: Data?, forKey key: String, cacheType: ImageCacheType
    ) async throws(WebImageError)

    /// Stores without waiting for the disk: the memory part is done when this returns;
    /// the disk part (`data`, or `image` encoded, then `extendedData` when given) runs in
    /// the background, and ``flush()`` waits for it. Failures are logged.
    ///
    /// The manager stores every result this way unless the load asks for
    /// ``WebImageOptions/waitStoreCache``. The default implementation runs
    /// ``store(_:data:forKey:cacheType:)`` and ``setExtendedData(_:forKey:)`` in a task.
    func storeInBackground(
        _ image: DecodedImage?, data: Data?, extendedData: Data?, forKey key: String, cacheType: ImageCacheType)

    /// Removes `key` from the caches `cacheType` names.
    func removeImage(forKey key: String, cacheType: ImageCacheType) async

    /// Where `key` is cached among those `cacheType` names: memory is reported first.
    func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType

    /// Empties the caches `cacheType` names.
    func clear(cacheType: ImageCacheType) async

    /// Returns when every store, removal and trim started before the call is done.
    func flush() async
}

extension ImageCaching {
    /// `nil`: this cache cannot answer a query without suspending.
    public func queryImageSynchronously(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) -> ImageCacheQueryResult? {
        nil
    }

    /// ``queryImage(forKey:options:context:)`` with no options and the default context.
    public func queryImage(forKey key: String) async throws(WebImageError) -> ImageCacheQueryResult {
        try await queryImage(forKey: key, options: [], context: WebImageContext())
    }

    /// ``queryImage(forKey:options:context:)`` with the default context.
    public func queryImage(
        forKey key: String, options: WebImageOptions
    ) async throws(WebImageError) -> ImageCacheQueryResult {
        try await queryImage(forKey: key, options: options, context: WebImageContext())
    }

    /// ``queryImage(forKey:options:context:)`` with no options.
    public func queryImage(
        forKey key: String, context: WebImageContext
    ) async throws(WebImageError) -> ImageCacheQueryResult {
        try await queryImage(forKey: key, options: [], context: context)
    }

    public func diskEntry(forKey key: String) async -> (data: Data, extendedData: Data?)? {
        guard let data = await diskData(forKey: key) else { return nil }
        return (data, await extendedData(forKey: key))
    }

    public func storeDiskEntry(_ data: Data, extendedData: Data?, forKey key: String) async throws(WebImageError) {
        try await store(nil, data: data, forKey: key, cacheType: .disk)
        // A new entry starts without extended data.
        if let extendedData { try await setExtendedData(extendedData, forKey: key) }
    }

    public func storeInBackground(
        _ image: DecodedImage?, data: Data?, extendedData: Data?, forKey key: String, cacheType: ImageCacheType
    ) {
        Task {
            do throws(WebImageError) {
                try await store(image, data: data, forKey: key, cacheType: cacheType)
                if let extendedData, cacheType.includesDisk { try await setExtendedData(extendedData, forKey: key) }
            } catch {
                LibraryCache.logger.error("Storing \(key.redactedURLForLog) failed: \(error)")
            }
        }
    }
}

// MARK: - ImageCacheType

/// Where an image was found, or which caches an operation applies to.
///
/// As a query result: ``none`` (a miss), ``memory`` or ``disk``. As a target of store,
/// remove or clear: ``memory``, ``disk`` or ``all`` (``none`` does nothing).
public enum ImageCacheType: String, Sendable, Hashable, CaseIterable, Codable {
    /// Not cached; as a target, no cache.
    case none
    /// The memory cache.
    case memory
    /// The disk cache.
    case disk
    /// Both caches (a target only).
    case all

    /// Whether this target includes the memory cache.
    public var includesMemory: Bool { self == .memory || self == .all }
    /// Whether this target includes the disk cache.
    public var includesDisk: Bool { self == .disk || self == .all }
}

// MARK: - ImageCacheQueryResult

/// What a cache query found.
public struct ImageCacheQueryResult: Sendable {
    /// The image; `nil` on a miss.
    public var image: DecodedImage?
    /// The encoded data the image was decoded from, for a disk hit; `nil` otherwise.
    public var data: Data?
    /// Where the image came from: ``ImageCacheType/memory``, ``ImageCacheType/disk``,
    /// or ``ImageCacheType/none`` for a miss.
    public var cacheType: ImageCacheType

    public init(image: DecodedImage?, data: Data? = nil, cacheType: ImageCacheType) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
    }

    /// Nothing found.
    public static let miss = ImageCacheQueryResult(image: nil, cacheType: .none)
}
