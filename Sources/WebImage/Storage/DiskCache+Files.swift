#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CFileIO
import Foundation
import Synchronization

/// The blocking file operations behind ``DiskCache``. Everything that changes the
/// directory runs on its `ioQueue`; reads run on the caller's thread (see
/// ``readDataSync(forKey:)``).
///
/// They use POSIX calls directly: a hit is one `open`, `fstat`, `read`, `close` on the
/// caller's thread (plus a `utimensat` queued on `ioQueue` when the access date is over a
/// minute old), with no Foundation file layer in between (a disk hit is benchmarked
/// against a bare `read`).
extension DiskCache {
    /// One entry file of the main directory.
    struct Entry {
        var name: String
        var size: Int
        /// Seconds since 1970 of the last read or write.
        var accessDate: Double
    }

    /// Which file a path named when it was read: device and inode numbers.
    struct FileIdentity: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }

        /// The identity of whatever `file` names now (not following a symlink), if anything.
        init?(atPath file: String) {
            var info = stat()
            guard lstat(file, &info) == 0 else { return nil }
            self.init(info)
        }
    }

    enum ReadOutcome {
        /// The bytes, and the access date the entry had before this read.
        case data(Data, accessDate: Double)
        case missing
        /// The file exists but cannot be read; its identity when it could be taken.
        case unreadable(FileIdentity?)
    }

    /// Reads `key`'s entry on the calling thread; safe on any thread, with no hop. Writes
    /// are atomic renames, so the file opened is always some whole entry. The follow-up
    /// writes are queued on `ioQueue` without waiting (``queueFollowUp(for:_:)``): the
    /// access-date refresh (at most once a minute per entry) and the removal of an
    /// unreadable entry.
    func readDataSync(forKey key: String) -> Data? {
        readEntrySync(forKey: key, withExtendedData: false)?.data
    }

    /// ``readDataSync(forKey:)``'s read, with `withExtendedData` the entry's extended data
    /// too: the extended attribute from the same open file (so both are one entry's), else
    /// the entry's sidecar.
    func readEntrySync(forKey key: String, withExtendedData: Bool = true) -> StoredEntry? {
        let name = CacheKey.fileName(for: key)
        for directory in [path] + config.additionalCachePaths {
            let file = directory + "/" + name
            var attribute: Data?
            switch Self.readFile(atPath: file, readingAttribute: withExtendedData && config.usesExtendedAttributes, into: &attribute) {
            case .data(let data, let accessDate):
                if directory == path, Self.needsAccessDateRefresh(accessDate) {
                    // A writer may have replaced the file since: then the touch lands on a
                    // fresh entry, whose date is already now, so it changes nothing that matters.
                    queueFollowUp(for: name) { Self.touch(file) }
                }
                if withExtendedData, attribute == nil { attribute = Self.readSidecar(in: directory, forName: name) }
                return StoredEntry(data: data, extendedData: attribute)
            case .unreadable(let identity) where directory == path:
                queueFollowUp(for: name) { self.removeUnreadableFileSync(named: name, identity: identity) }
            case .unreadable, .missing:
                continue
            }
        }
        return nil
    }

    /// Removes an entry found unreadable, unless a write replaced it in the meantime (the
    /// read ran off the queue, so a store queued before this removal may already have
    /// put a good file there).
    func removeUnreadableFileSync(named name: String, identity: FileIdentity?) {
        guard let current = FileIdentity(atPath: path + "/" + name) else { return }
        if let identity, identity != current { return }
        removeFileSync(named: name)
    }

    /// Writes `key`'s entry; with `extendedData`, attaches it too (see ``setExtendedDataSync(_:forKey:)``).
    ///
    /// A new entry is written as an unnamed file (`O_TMPFILE`), its extended data set on
    /// the descriptor, then linked in under its name: a reader in any process still sees
    /// no entry or a whole one, with its extended data already there, and the directory
    /// changes once instead of a temporary name created and renamed (plus a path lookup
    /// each for the `lstat`, the `setxattr` and the sidecar's `unlink`). An entry that
    /// exists is replaced by linking the same file under a temporary name and renaming
    /// it over; a file system without `O_TMPFILE` takes ``writeFileAtomically(_:toPath:)``.
    func writeDataSync(_ data: Data, extendedData: Data? = nil, forKey key: String) throws(WebImageError) {
        let name = CacheKey.fileName(for: key)
        let target = path + "/" + name
        var attached = false
        let write = { () -> (delta: Int, result: WebImageError?) in
            if let linked = self.linkNewFile(data, attribute: extendedData, name: name) {
                attached = linked.attached
                return (linked.delta, nil)
            }
            var old = stat()
            let replaces = lstat(target, &old) == 0
            do throws(WebImageError) {
                try self.writeFileAtomically(data, toPath: target)
            } catch {
                return (0, error)
            }
            // A new entry starts without extended data; a sidecar of the old one would lie.
            if replaces { unlink(self.sidecarPath(forName: name)) }
            return (data.count - (replaces ? Int(old.st_size) : 0), nil)
        }
        if let budget = config.budget {
            // The write and its accounting happen under the budget's lock (see DiskBudget).
            if let error = budget.update(write) { throw error }
        } else {
            let (delta, error) = write()
            if let error { throw error }
            if config.maxDiskSize > 0 {
                let total = knownSize.withLock { known -> Int? in
                    known = known.map { $0 + delta }
                    return known
                }
                // Uncounted (the open skipped its sweep): counting once is the trim's own listing.
                if (total ?? .max) > config.maxDiskSize { removeExpiredDataSync() }
            }
        }
        if let extendedData, !attached { try setExtendedDataSync(extendedData, forKey: key) }
    }

    /// Writes `data` as a new, unnamed file in the directory, sets `attribute` as its
    /// extended data when the file system takes it, and links it in as entry `name`; when
    /// the entry exists, links it under a temporary name and renames that over it (the
    /// bytes are written once either way). Returns whether the attribute was set and by
    /// how many bytes the entries grew, or `nil` when nothing was stored: the system
    /// cannot (no `O_TMPFILE`, no `/proc`) or a step failed, and the caller's
    /// temporary-file path then meets and reports the same failure.
    private func linkNewFile(_ data: Data, attribute: Data?, name: String) -> (attached: Bool, delta: Int)? {
        var fd = wi_open_tmpfile(path)
        if fd < 0 && errno == ENOENT {
            guard (try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)) != nil else {
                return nil
            }
            fd = wi_open_tmpfile(path)
        }
        guard fd >= 0 else { return nil }
        // close's result is not checked as the temporary-file path checks it: O_TMPFILE
        // exists only on local file systems (not NFS), where close reports no write error.
        defer { close(fd) }
        guard data.withUnsafeBytes({ Self.writeAll(fd, $0) }) else { return nil }
        var attached = false
        if let attribute, config.usesExtendedAttributes {
            attached = attribute.withUnsafeBytes { Self.setAttribute(descriptor: fd, $0) } == 0
        }
        let target = path + "/" + name
        if wi_link_descriptor(fd, target) == 0 { return (attached, data.count) }
        guard errno == EEXIST else { return nil }
        let temporary = path + "/.tmp-\(getpid())-\(Self.temporaryCounter.add(1, ordering: .relaxed).newValue)"
        guard wi_link_descriptor(fd, temporary) == 0 else { return nil }
        var old = stat()
        let replaces = lstat(target, &old) == 0
        guard rename(temporary, target) == 0 else {
            unlink(temporary)
            return nil
        }
        // A new entry starts without extended data; a sidecar of the old one would lie.
        if replaces { unlink(sidecarPath(forName: name)) }
        return (attached, data.count - (replaces ? Int(old.st_size) : 0))
    }

    func removeDataSync(forKey key: String) {
        removeFileSync(named: CacheKey.fileName(for: key))
    }

    func containsDataSync(forKey key: String) -> Bool {
        let name = CacheKey.fileName(for: key)
        if access(path + "/" + name, F_OK) == 0 { return true }
        return config.additionalCachePaths.contains { access($0 + "/" + name, F_OK) == 0 }
    }

    func removeAllSync() {
        for name in Self.listNames(inDirectory: path, includingHidden: true) where name != ".budget" {
            unlink(path + "/" + name)
        }
        knownSize.withLock { $0 = 0 }
        config.budget?.enforce()
    }

    /// Removes an entry file and its sidecar, keeping ``knownSize`` in step.
    func removeFileSync(named name: String) {
        let file = path + "/" + name
        let remove = { () -> (delta: Int, result: Void) in
            var info = stat()
            guard lstat(file, &info) == 0, unlink(file) == 0 else { return (0, ()) }
            let size = Int(info.st_size)
            self.knownSize.withLock { known in known = known.map { $0 - size } }
            return (-size, ())
        }
        if let budget = config.budget { budget.update(remove) } else { _ = remove() }
        unlink(sidecarPath(forName: name))
    }

    /// The entries of the main directory (regular files whose names do not start with
    /// a dot: temporary and sidecar files are hidden).
    func listEntriesSync() -> [Entry] {
        Self.listNames(inDirectory: path, includingHidden: false).compactMap { name in
            var info = stat()
            guard lstat(path + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            return Entry(name: name, size: Int(info.st_size), accessDate: Self.accessDate(info))
        }
    }

    /// Writes `data` to a temporary file beside `target`, then renames it over `target`.
    ///
    /// The temporary file is named `.tmp-<pid>-<n>` and created with `O_EXCL` (mode
    /// 0644 less the umask, as any file the process writes), which needs neither
    /// `mkstemp`'s random names nor a `fchmod` afterwards.
    func writeFileAtomically(_ data: Data, toPath target: String) throws(WebImageError) {
        var temporary = ""
        func makeTemporary() -> Int32 {
            while true {
                temporary = path + "/.tmp-\(getpid())-\(Self.temporaryCounter.add(1, ordering: .relaxed).newValue)"
                let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                if fd >= 0 || errno != EEXIST { return fd }
            }
        }
        var fd = makeTemporary()
        if fd < 0 && errno == ENOENT {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw WebImageError(.cacheIOFailed, "Cannot create the cache directory \(path)", underlying: error)
            }
            fd = makeTemporary()
        }
        guard fd >= 0 else { throw Self.ioError("create a temporary file in \(path)") }
        let written = data.withUnsafeBytes { Self.writeAll(fd, $0) }
        let writeErrno = errno
        if close(fd) != 0 || !written {
            let error = Self.ioError("write \(data.count) bytes to \(target)", code: written ? errno : writeErrno)
            unlink(temporary)
            throw error
        }
        if rename(temporary, target) != 0 {
            let error = Self.ioError("rename a temporary file to \(target)")
            unlink(temporary)
            throw error
        }
    }

    /// Numbers the temporary files of this process.
    static let temporaryCounter = Atomic<UInt64>(0)

    // MARK: Primitives

    /// Seconds within which a read does not refresh an entry's access date again.
    static let accessDateGranularity: Double = 60

    /// Opens, reads and closes `file`; no other I/O, so it may run on any thread.
    static func readFile(atPath file: String) -> ReadOutcome {
        var attribute: Data?
        return readFile(atPath: file, readingAttribute: false, into: &attribute)
    }

    /// ``readFile(atPath:)``; when `readingAttribute`, the file's extended data
    /// (``extendedAttributeName``) too, read from the same open file into `attribute` (`nil`
    /// when it has none), so the bytes and the extended data are one entry's.
    static func readFile(atPath file: String, readingAttribute: Bool, into attribute: inout Data?) -> ReadOutcome {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            return errno == ENOENT || errno == ENOTDIR ? .missing : .unreadable(FileIdentity(atPath: file))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .unreadable(nil) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .missing }
        if readingAttribute { attribute = getAttribute(descriptor: fd) }
        let size = Int(info.st_size)
        var data = Data()
        if size > 0 {
            guard let buffer = malloc(size) else { return .unreadable(FileIdentity(info)) }
            var done = 0
            while done < size {
                let n = read(fd, buffer + done, size - done)
                if n < 0 && errno == EINTR { continue }
                if n < 0 {
                    free(buffer)
                    return .unreadable(FileIdentity(info))
                }
                if n == 0 { break }
                done += n
            }
            data = Data(bytesNoCopy: buffer, count: done, deallocator: .free)
        }
        return .data(data, accessDate: accessDate(info))
    }

    /// Whether a read should refresh an entry last touched at `accessDate`.
    ///
    /// The date is set explicitly because atime updates depend on mount options (noatime,
    /// relatime); the modification time is what only writes and this refresh change. An
    /// entry refreshed within the last minute is left alone: the write dirties the inode
    /// (a journal commit on ext4), which made a hot entry's hit cost twice a bare read(),
    /// and a minute is nothing against the age and size limits.
    /// Queues a read's follow-up `work` for entry `name` on `ioQueue`, unless one is queued
    /// for it already or ``maxQueuedFollowUps`` are: while the queue is held up (a slow
    /// disk under a long write) reads served from the page cache go on, and each would
    /// otherwise queue the same refresh again. Skipping one loses nothing: the next read
    /// of the entry finds the same old date, or the same unreadable file.
    func queueFollowUp(for name: String, _ work: @escaping @Sendable () -> Void) {
        let queued = queuedFollowUps.withLock { names in
            names.count < Self.maxQueuedFollowUps && names.insert(name).inserted
        }
        guard queued else { return }
        ioQueue.async {
            // Taken off first: a read after this point may queue the entry again.
            _ = self.queuedFollowUps.withLock { $0.remove(name) }
            work()
        }
    }

    static func needsAccessDateRefresh(_ accessDate: Double) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) - accessDate >= accessDateGranularity
    }

    /// Sets `file`'s access date (its modification time) to now. Runs on `ioQueue`.
    static func touch(_ file: String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var times = [now, now]
        _ = utimensat(AT_FDCWD, file, &times, 0)
    }

    /// Writes all of `bytes` to `fd`, retrying after signals; `false` (with `errno` set) when
    /// a write fails. Shared with the tool's plain-file writer (`PlainFile`).
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var p = bytes.baseAddress else { return true }
        var left = bytes.count
        while left > 0 {
            let n = write(fd, p, left)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return false }
            if n == 0 {
                errno = EIO
                return false
            }
            p += n
            left -= n
        }
        return true
    }

    static func listNames(inDirectory directory: String, includingHidden: Bool) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            if !includingHidden && name.hasPrefix(".") { continue }
            names.append(name)
        }
        return names
    }

    /// The access date kept in the modification time (see ``readFile(atPath:refreshAccessDate:)``).
    static func accessDate(_ info: stat) -> Double {
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func ioError(_ action: String, code: Int32 = errno) -> WebImageError {
        let reason = String(cString: strerror(code))
        return WebImageError(.cacheIOFailed, "Cannot \(action): \(reason)",
                             underlying: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
    }
}
