import Dispatch
import Foundation
import Synchronization

/// A directory of files keyed by strings, with age and size limits.
///
/// Each entry is one file named by ``CacheKey/fileName(for:)``. Writes are atomic (a
/// temporary file in the same directory, then `rename`), so a reader in this or another
/// process never sees half a file, and several caches may share one directory. Reading
/// an entry refreshes its access date; ``Config/maxDiskAge`` and ``Config/maxDiskSize``
/// are checked against it, least recently read first.
///
/// Everything that changes the directory (writes, removals, trimming, access-date
/// refreshes) runs on the cache's own serial ``ioQueue``. Reading an entry does not need
/// that order, since a reader always opens some whole file, so reads run on
/// ``Config/ioPool`` (several at once, never on the cooperative pool) and queue
/// their follow-up writes on ``ioQueue`` without waiting for them. Every operation comes
/// as an `async` function, which suspends until the work is done, and as a callback
/// function; callbacks run on the thread that did the work, so they must hand long work
/// elsewhere. ``flush()`` waits for every queued write.
///
/// Opening a cache schedules ``removeExpiredData()``, so a directory left over its
/// limits by an earlier run is trimmed without being asked.
public final class DiskCache: Sendable {
    /// Limits and storage choices of a disk cache.
    public struct Config: Sendable {
        /// Entries not read for longer than this many seconds are removed by
        /// ``DiskCache/removeExpiredData()``. Default one week; negative never expires.
        ///
        /// Normalised when set (see ``clampedAge(_:)``): NaN becomes the default (one
        /// week); a negative value, `.infinity` and anything over 100 years become -1
        /// (never expires).
        public var maxDiskAge: TimeInterval = Config.defaultMaxDiskAge {
            didSet { maxDiskAge = Self.clampedAge(maxDiskAge) }
        }
        /// Total bytes allowed; when exceeded, least recently read entries are removed
        /// until the total is at most half of it. Default 0, no limit.
        ///
        /// A negative value becomes 0 (no limit).
        public var maxDiskSize: Int = 0 { didSet { maxDiskSize = max(0, maxDiskSize) } }
        /// Directories searched, read-only, after the main one (for example a cache
        /// pre-filled at build time). Entries there are never modified or removed.
        public var additionalCachePaths: [String] = []
        /// Store extended data in a `user.` extended attribute when the file system
        /// supports it (default `true`); `false` always uses a hidden sidecar file, for
        /// directories copied by tools that drop extended attributes.
        public var usesExtendedAttributes: Bool = true
        /// A limit shared with other caches under one root, and with other processes (see
        /// ``DiskBudget``). When set it replaces ``maxDiskAge`` and ``maxDiskSize``. Default none.
        public var budget: DiskBudget?
        /// Where reads run. Default ``BlockingIOPool/shared``.
        public var ioPool: BlockingIOPool = .shared

        public init(
            maxDiskAge: TimeInterval = 7 * 24 * 60 * 60,
            maxDiskSize: Int = 0,
            additionalCachePaths: [String] = [],
            usesExtendedAttributes: Bool = true
        ) {
            self.maxDiskAge = Self.clampedAge(maxDiskAge)
            self.maxDiskSize = max(0, maxDiskSize)
            self.additionalCachePaths = additionalCachePaths
            self.usesExtendedAttributes = usesExtendedAttributes
        }

        /// The default ``maxDiskAge``: one week.
        public static let defaultMaxDiskAge: TimeInterval = 7 * 24 * 60 * 60
        /// The longest ``maxDiskAge`` kept as given: 100 years. Longer ages never expire
        /// within the life of a cache, so they become -1.
        public static let maxExpiringAge: TimeInterval = 100 * 365.25 * 24 * 60 * 60

        /// `age` as a valid ``maxDiskAge``: NaN gives the default (one week); a negative
        /// value, `.infinity` and anything over ``maxExpiringAge`` give -1 (never expires);
        /// 0 through 100 years stay as they are.
        public static func clampedAge(_ age: TimeInterval) -> TimeInterval {
            if age.isNaN { return defaultMaxDiskAge }
            return (0...maxExpiringAge).contains(age) ? age : -1
        }
    }

    /// The directory holding the entries (created on the first write).
    public let directory: URL
    /// The limits this cache was opened with.
    public let config: Config
    /// The serial queue on which every operation that changes this cache's files runs
    /// (reads run on ``Config/ioPool``; see ``data(forKey:)``).
    public let ioQueue: DispatchQueue

    let path: String
    /// Bytes of entries as last counted, kept up to date by this cache's own writes and
    /// removals so a write can trim without listing the directory; `nil` until counted.
    let knownSize = Mutex<Int?>(nil)

    /// Opens the cache in `directory` (any directory; it is created on the first write).
    public init(directory: URL, config: Config = Config()) {
        self.directory = directory.standardizedFileURL
        self.config = config
        path = self.directory.path
        ioQueue = DispatchQueue(label: "WebImage.DiskCache(\(self.directory.lastPathComponent))", qos: .utility)
        config.budget?.register(path)
        ioQueue.async { self.removeExpiredDataSync() }
    }

    /// Opens the cache for `namespace` in ``defaultDirectory(namespace:)``.
    public convenience init(namespace: String, config: Config = Config()) {
        self.init(directory: Self.defaultDirectory(namespace: namespace), config: config)
    }

    /// `$XDG_CACHE_HOME/webimage/<namespace>`, or `~/.cache/webimage/<namespace>` when
    /// `XDG_CACHE_HOME` is unset or not absolute (as the XDG specification says).
    public static func defaultDirectory(namespace: String) -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache", isDirectory: true)
        }
        return base.appendingPathComponent("webimage", isDirectory: true)
            .appendingPathComponent(namespace, isDirectory: true)
    }

    /// The path of the file that holds (or would hold) `key`'s entry. Does no I/O.
    public func cachePath(forKey key: String) -> String {
        path + "/" + CacheKey.fileName(for: key)
    }

    // MARK: Async API

    /// The data stored for `key`, from the main directory or else the additional ones;
    /// `nil` on a miss. A hit in the main directory refreshes the entry's access date;
    /// an unreadable file there counts as a miss and is removed.
    ///
    /// The blocking `open` + `read` runs on ``Config/ioPool`` while the calling
    /// task is suspended. The access-date refresh and the removal of an unreadable file
    /// are queued on ``ioQueue`` and not awaited (``flush()`` waits for them). A task
    /// cancelled before the read started gets `nil`.
    public func data(forKey key: String) async -> Data? {
        try? await config.ioPool.run { self.readDataSync(forKey: key) }
    }

    /// Returns when every write, removal and trim queued before this call is done, so a
    /// program can exit or delete the directory without losing or racing them.
    public func flush() async {
        await onIO {}
    }

    /// Stores `data` for `key` atomically, replacing any entry and its extended data.
    ///
    /// - Throws: ``WebImageError/Code/cacheIOFailed`` when the file cannot be written.
    public func store(_ data: Data, forKey key: String) async throws {
        try await onIO { Result { try self.writeDataSync(data, forKey: key) } }.get()
    }

    /// Removes `key`'s entry and its extended data from the main directory.
    public func removeData(forKey key: String) async {
        await onIO { self.removeDataSync(forKey: key) }
    }

    /// Whether `key` has an entry in the main or an additional directory (does not
    /// refresh the access date).
    public func containsData(forKey key: String) async -> Bool {
        await onIO { self.containsDataSync(forKey: key) }
    }

    /// Removes every entry of the main directory.
    public func removeAll() async {
        await onIO { self.removeAllSync() }
    }

    /// Removes entries older than ``Config/maxDiskAge``, then, when the rest exceed
    /// ``Config/maxDiskSize``, the least recently read until at most half of it remains.
    public func removeExpiredData() async {
        await onIO { self.removeExpiredDataSync() }
    }

    /// The exact bytes of all entries in the main directory (file sizes, counted now).
    public func totalSize() async -> Int {
        await onIO { self.listEntriesSync().reduce(0) { $0 + $1.size } }
    }

    /// The exact number of entries in the main directory.
    public func totalCount() async -> Int {
        await onIO { self.listEntriesSync().count }
    }

    /// The extended data stored with `key`'s entry (HTTP validators, the original URL…),
    /// or `nil` when there is none.
    public func extendedData(forKey key: String) async -> Data? {
        try? await config.ioPool.run { self.extendedDataSync(forKey: key) }
    }

    /// Attaches `data` to `key`'s existing entry in the main directory, or removes the
    /// extended data when `data` is `nil`. It is removed with its entry.
    ///
    /// - Throws: ``WebImageError/Code/cacheIOFailed`` when there is no such entry or the
    ///   data cannot be written.
    public func setExtendedData(_ data: Data?, forKey key: String) async throws {
        try await onIO { Result { try self.setExtendedDataSync(data, forKey: key) } }.get()
    }

    // MARK: Callback API (completions run on `ioQueue`, reads' on the I/O pool)

    /// ``data(forKey:)`` with a completion on a thread of ``Config/ioPool``.
    public func data(forKey key: String, completion: @escaping @Sendable (Data?) -> Void) {
        config.ioPool.submit { completion(self.readDataSync(forKey: key)) }
    }

    /// ``extendedData(forKey:)`` with a completion on a thread of ``Config/ioPool``.
    public func extendedData(forKey key: String, completion: @escaping @Sendable (Data?) -> Void) {
        config.ioPool.submit { completion(self.extendedDataSync(forKey: key)) }
    }

    /// ``setExtendedData(_:forKey:)`` with a completion on ``ioQueue``.
    public func setExtendedData(
        _ data: Data?, forKey key: String, completion: @escaping @Sendable (Result<Void, WebImageError>) -> Void
    ) {
        ioQueue.async {
            completion(Result { () throws(WebImageError) in try self.setExtendedDataSync(data, forKey: key) })
        }
    }

    /// ``store(_:forKey:)`` with a completion on ``ioQueue``.
    public func store(
        _ data: Data, forKey key: String,
        completion: (@Sendable (Result<Void, WebImageError>) -> Void)? = nil
    ) {
        ioQueue.async {
            let result = Result<Void, WebImageError> { () throws(WebImageError) in try self.writeDataSync(data, forKey: key) }
            completion?(result)
        }
    }

    /// ``removeData(forKey:)`` with a completion on ``ioQueue``.
    public func removeData(forKey key: String, completion: (@Sendable () -> Void)? = nil) {
        ioQueue.async {
            self.removeDataSync(forKey: key)
            completion?()
        }
    }

    /// ``containsData(forKey:)`` with a completion on ``ioQueue``.
    public func containsData(forKey key: String, completion: @escaping @Sendable (Bool) -> Void) {
        ioQueue.async { completion(self.containsDataSync(forKey: key)) }
    }

    /// ``removeAll()`` with a completion on ``ioQueue``.
    public func removeAll(completion: (@Sendable () -> Void)? = nil) {
        ioQueue.async {
            self.removeAllSync()
            completion?()
        }
    }

    /// ``removeExpiredData()`` with a completion on ``ioQueue``.
    public func removeExpiredData(completion: (@Sendable () -> Void)? = nil) {
        ioQueue.async {
            self.removeExpiredDataSync()
            completion?()
        }
    }

    private func onIO<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            ioQueue.async { continuation.resume(returning: work()) }
        }
    }
}
