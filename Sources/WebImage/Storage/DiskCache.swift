import Dispatch
import Foundation
import Synchronization

/// A directory of files keyed by strings, with age and size limits.
///
/// Each entry is one file named by ``CacheKey/fileName(for:)``. Writes are atomic (a new
/// entry is an unnamed `O_TMPFILE` file linked in whole, its extended data already set;
/// a replacement, or a file system without `O_TMPFILE`, is a temporary file in the same
/// directory, then `rename`), so a reader in this or another process never sees half a
/// file, and several caches may share one directory. Reading
/// an entry refreshes its access date; ``Config/maxDiskAge`` and ``Config/maxDiskSize``
/// are checked against it, least recently read first.
///
/// - **Reads** (``data(forKey:)``) need no order, since a reader always opens some whole
///   file. On Linux a hit whose file is in the page cache is read on the calling task
///   without blocking it (`openat2` with `RESOLVE_CACHED`, `fstat`, `preadv2` with
///   `RWF_NOWAIT`: each fails with `EAGAIN` rather than wait for the disk); anything else
///   (a cold file, a cold directory entry, a file system without these calls, another
///   platform) is read on ``Config/ioPool`` while the task is suspended. A read never
///   blocks the cooperative pool. A miss is answered on the task when the kernel
///   remembers the name is absent; the first lookup of a name takes the pool.
/// - **Changes** (writes, removals, trimming, access-date refreshes) run in order on the
///   cache's own serial `ioQueue`, at background priority (`.background`: this
///   libdispatch runs it at nice 10 on Linux), so a burst of writes yields the CPU to the
///   loads and requests waiting for an answer, as a `.utility` write queue does on Apple
///   platforms (Nuke's; `.utility` is only nice 2 here). An awaited change waits behind
///   it. ``flush()`` waits for every change queued before it.
///   Writes queued and not yet done (and extended data set with a completion) hold at
///   most ``Config/maxQueuedWriteBytes``; one more fails at once with
///   ``WebImageCodecs/WebImageError/Code/cacheIOFailed``. Removals, `containsData` and
///   trims asked for with a completion have no bound of their own: each waits on
///   `ioQueue` holding only its caller's closure, as an `async` one holds its caller's task.
///   A read's own follow-ups (the access-date refresh, removing an unreadable file) are
///   queued at most once per entry and 1,024 at a time; past that a read queues none,
///   and a later read of the entry does it.
///
/// Every operation comes as an `async` function and as a callback function; callbacks
/// run on the thread that did the work (`ioQueue`, at its background priority, or a pool
/// thread), so they must hand long work elsewhere.
///
/// Opening a cache does no I/O on the caller's thread. It queues one check on
/// `ioQueue`: unless this directory was swept under the same limits within the last
/// hour (a marker file, `.swept-<age>-<size>`, records it for every process),
/// ``removeExpiredData()`` runs, so a directory left over its limits by an earlier run
/// is trimmed without being asked and without listing it on every open.
public final class DiskCache: Sendable {
    /// The directory holding the entries (created on the first write).
    public let directory: URL
    /// The limits this cache was opened with.
    public let config: Config
    /// The serial queue on which every operation that changes this cache's files runs
    /// (reads run on ``Config/ioPool``; see ``data(forKey:)``).
    package let ioQueue: DispatchQueue

    let path: String
    /// Bytes of entries as last counted, kept up to date by this cache's own writes and
    /// removals so a write can trim without listing the directory; `nil` until counted.
    let knownSize = Mutex<Int?>(nil)
    /// Bytes of writes queued on `ioQueue` and not yet done, held under
    /// ``Config/maxQueuedWriteBytes``.
    private let queuedWriteBytes = Atomic<Int>(0)
    /// Entries with a read's follow-up (an access-date refresh, the removal of an
    /// unreadable file) queued on `ioQueue` and not yet run: at most one per entry and
    /// ``maxQueuedFollowUps`` in all (``queueFollowUp(for:_:)``).
    let queuedFollowUps = Mutex<Set<String>>([])
    /// The most reads' follow-ups queued at once.
    static let maxQueuedFollowUps = 1024

    /// Opens the cache in `directory` (any directory; it is created on the first write).
    public init(directory: URL, config: Config = Config()) {
        self.directory = directory.standardizedFileURL
        self.config = config
        path = self.directory.path
        // Background, not utility: on Linux only background lowers the thread enough
        // (nice 10, not 2) for a burst of writes to stop taking CPU from the loads.
        ioQueue = DispatchQueue(label: "WebImage.DiskCache(\(self.directory.lastPathComponent))", qos: .background)
        config.budget?.register(path)
        ioQueue.async { self.sweepOnOpenSync() }
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

    /// `directory/namespace`, or ``defaultDirectory(namespace:)`` without a directory: where
    /// the tool and WebImageCompat's `ImageCache` keep a namespace's files.
    package static func directory(namespace: String, in directory: URL?) -> URL {
        directory.map { $0.appendingPathComponent(namespace, isDirectory: true) } ?? defaultDirectory(namespace: namespace)
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
    /// Runs on the calling task when the file and its directory entry are cached by the
    /// kernel (no thread hop, nothing that waits for the disk); otherwise the blocking
    /// `open` + `read` runs on ``Config/ioPool`` while the task is suspended (a task
    /// cancelled before that read started gets `nil`). The access-date refresh and the
    /// removal of an unreadable file are queued on `ioQueue` and not awaited
    /// (``flush()`` waits for them).
    public func data(forKey key: String) async -> Data? {
        if case .done(let data) = readDataWithoutBlocking(forKey: key) { return data }
        return try? await config.ioPool.run { self.readDataSync(forKey: key) }
    }

    /// `key`'s entry with its extended data, read from one open file so the two are one
    /// entry's (a sidecar, where the file system refuses extended attributes, is read after
    /// it), from the main directory or else the additional ones; `nil` on a miss. A hit in
    /// the main directory refreshes its access date, as ``data(forKey:)``'s does.
    ///
    /// Runs on ``Config/ioPool`` while the task is suspended: reading an extended attribute
    /// may wait for the disk, and no call tells beforehand.
    package func entry(forKey key: String) async -> StoredEntry? {
        (try? await config.ioPool.run { self.readEntrySync(forKey: key) }) ?? nil
    }

    /// Returns when every write, removal and trim queued before this call is done, so a
    /// program can exit or delete the directory without losing or racing them.
    public func flush() async {
        await onIO {}
    }

    /// Stores `data` for `key` atomically, replacing any entry and its extended data.
    /// Runs on `ioQueue`.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/cacheIOFailed`` when the file cannot be written.
    public func store(_ data: Data, forKey key: String) async throws(WebImageError) {
        try await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, WebImageError>, Never>) in
            let refused = queueWrite(of: data.count, forKey: key) {
                continuation.resume(returning: Result { () throws(WebImageError) in try self.writeDataSync(data, forKey: key) })
            }
            if let refused { continuation.resume(returning: .failure(refused)) }
        }.get()
    }

    /// Queues `write`, which writes `count` bytes for `key`, on `ioQueue`, counted against
    /// ``Config/maxQueuedWriteBytes`` until it is done. Returns the error instead when the
    /// write would pass that limit (`write` is dropped); a write larger than the limit is
    /// queued when no other write is.
    package func queueWrite(of count: Int, forKey key: String, _ write: @escaping @Sendable () -> Void) -> WebImageError? {
        let limit = config.maxQueuedWriteBytes
        var queued = queuedWriteBytes.load(ordering: .relaxed)
        while true {
            guard queued == 0 || count <= limit - queued else {
                return WebImageError(
                    .cacheIOFailed,
                    "The disk cache's write line is full (\(queued) of \(limit) bytes queued); \(key.redactedURLForLog) was not written")
            }
            let (exchanged, original) = queuedWriteBytes.compareExchange(
                expected: queued, desired: queued + count, ordering: .relaxed)
            if exchanged { break }
            queued = original
        }
        ioQueue.async {
            write()
            self.queuedWriteBytes.subtract(count, ordering: .relaxed)
        }
        return nil
    }

    /// Removes `key`'s entry and its extended data from the main directory. Runs on `ioQueue`.
    public func removeData(forKey key: String) async {
        await onIO { self.removeDataSync(forKey: key) }
    }

    /// Whether `key` has an entry in the main or an additional directory (does not
    /// refresh the access date). Runs on `ioQueue`.
    public func containsData(forKey key: String) async -> Bool {
        await onIO { self.containsDataSync(forKey: key) }
    }

    /// Removes every entry of the main directory. Runs on `ioQueue`.
    public func removeAll() async {
        await onIO { self.removeAllSync() }
    }

    /// Removes entries older than ``Config/maxDiskAge``, then, when the rest exceed
    /// ``Config/maxDiskSize``, the least recently read until at most half of it remains.
    /// Runs on `ioQueue`.
    public func removeExpiredData() async {
        await onIO { self.removeExpiredDataSync() }
    }

    /// The exact bytes of all entries in the main directory (file sizes, counted now on `ioQueue`).
    public func totalSize() async -> Int {
        await onIO { self.listEntriesSync().reduce(0) { $0 + $1.size } }
    }

    /// The exact number of entries in the main directory (counted now on `ioQueue`).
    public func totalCount() async -> Int {
        await onIO { self.listEntriesSync().count }
    }

    /// The extended data stored with `key`'s entry (HTTP validators, the original URL…),
    /// or `nil` when there is none. Read on ``Config/ioPool``.
    public func extendedData(forKey key: String) async -> Data? {
        try? await config.ioPool.run { self.extendedDataSync(forKey: key) }
    }

    /// Attaches `data` to `key`'s existing entry in the main directory, or removes the
    /// extended data when `data` is `nil`. It is removed with its entry. Runs on `ioQueue`.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/cacheIOFailed`` when there is no such entry or the
    ///   data cannot be written.
    public func setExtendedData(_ data: Data?, forKey key: String) async throws(WebImageError) {
        try await onIO { Result { () throws(WebImageError) in try self.setExtendedDataSync(data, forKey: key) } }.get()
    }

    func onIO<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            ioQueue.async { continuation.resume(returning: work()) }
        }
    }
}

// MARK: - Configuration

extension DiskCache {
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
        /// The most bytes of writes queued on the cache's I/O queue and not yet done. A
        /// write past it is not queued but fails at once with
        /// ``WebImageCodecs/WebImageError/Code/cacheIOFailed``: a cache write left out costs
        /// a later miss, while a line without a bound would hold every download's bytes
        /// in memory when the disk stalls. A single write larger than the limit is queued
        /// when no other write is, so every entry can be stored. Default 128 MiB.
        ///
        /// Less than 1 becomes 1.
        public var maxQueuedWriteBytes: Int = 128 << 20 { didSet { maxQueuedWriteBytes = max(1, maxQueuedWriteBytes) } }

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
}
