#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The blocking file operations behind ``DiskCache``; all run on its `ioQueue`.
///
/// They use POSIX calls directly: a hit is one `open`, `fstat`, `read` (and `futimens`
/// when the access date is over a minute old), with no Foundation file layer in between
/// (a disk hit is benchmarked against a bare `read`).
extension DiskCache {
    /// One entry file of the main directory.
    struct Entry {
        var name: String
        var size: Int
        /// Seconds since 1970 of the last read or write.
        var accessDate: Double
    }

    enum ReadOutcome {
        case data(Data)
        case missing
        case unreadable
    }

    func readDataSync(forKey key: String) -> Data? {
        let name = CacheKey.fileName(for: key)
        switch Self.readFile(atPath: path + "/" + name, refreshAccessDate: true) {
        case .data(let data):
            return data
        case .unreadable:
            removeFileSync(named: name)
        case .missing:
            break
        }
        for directory in config.additionalCachePaths {
            if case .data(let data) = Self.readFile(atPath: directory + "/" + name, refreshAccessDate: false) {
                return data
            }
        }
        return nil
    }

    func writeDataSync(_ data: Data, forKey key: String) throws(WebImageError) {
        let name = CacheKey.fileName(for: key)
        let target = path + "/" + name
        var old = stat()
        let oldSize = lstat(target, &old) == 0 ? Int(old.st_size) : 0
        try writeFileAtomically(data, toPath: target)
        // A new entry starts without extended data; a sidecar of the old one would lie.
        unlink(sidecarPath(forName: name))
        let total = knownSize.withLock { known -> Int? in
            guard let size = known else { return nil }
            known = size + data.count - oldSize
            return known
        }
        if config.maxDiskSize > 0, let total, total > config.maxDiskSize {
            removeExpiredDataSync()
        }
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
        for name in Self.listNames(inDirectory: path, includingHidden: true) {
            unlink(path + "/" + name)
        }
        knownSize.withLock { $0 = 0 }
    }

    /// Removes an entry file and its sidecar, keeping ``knownSize`` in step.
    func removeFileSync(named name: String) {
        let file = path + "/" + name
        var info = stat()
        if lstat(file, &info) == 0, unlink(file) == 0 {
            let size = Int(info.st_size)
            knownSize.withLock { known in known = known.map { $0 - size } }
        }
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
    func writeFileAtomically(_ data: Data, toPath target: String) throws(WebImageError) {
        var template: [CChar] = []
        // mkstemp overwrites the X's, so every attempt starts from a fresh template.
        func makeTemporary() -> Int32 {
            template = Array((path + "/.tmp-XXXXXX").utf8CString)
            return template.withUnsafeMutableBufferPointer { p in p.baseAddress.map { mkstemp($0) } ?? -1 }
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
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let written = data.withUnsafeBytes { Self.writeAll(fd, $0) }
        let writeErrno = errno
        // mkstemp creates 0600; entries are ordinary cache files like any other.
        fchmod(fd, 0o644)
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

    // MARK: Primitives

    /// Seconds within which a read does not refresh an entry's access date again.
    static let accessDateGranularity: Double = 60

    static func readFile(atPath file: String, refreshAccessDate: Bool) -> ReadOutcome {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT || errno == ENOTDIR ? .missing : .unreadable }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .unreadable }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .missing }
        let size = Int(info.st_size)
        var data = Data()
        if size > 0 {
            guard let buffer = malloc(size) else { return .unreadable }
            var done = 0
            while done < size {
                let n = read(fd, buffer + done, size - done)
                if n < 0 && errno == EINTR { continue }
                if n < 0 {
                    free(buffer)
                    return .unreadable
                }
                if n == 0 { break }
                done += n
            }
            data = Data(bytesNoCopy: buffer, count: done, deallocator: .free)
        }
        if refreshAccessDate {
            // Set explicitly: atime updates depend on mount options (noatime, relatime),
            // and the modification time is what only writes and this refresh ever change.
            // An entry refreshed within the last minute is left alone: the write dirties
            // the inode (a journal commit on ext4), which made a hot entry's hit cost twice
            // a bare read(), and a minute is nothing against the age and size limits.
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            if Double(now.tv_sec) - Self.accessDate(info) >= Self.accessDateGranularity {
                var times = [now, now]
                _ = futimens(fd, &times)
            }
        }
        return .data(data)
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var p = bytes.baseAddress else { return true }
        var left = bytes.count
        while left > 0 {
            let n = write(fd, p, left)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
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
