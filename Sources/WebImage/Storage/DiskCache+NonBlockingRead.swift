#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CFileIO
import Foundation

/// The read of a cache hit that never waits for the disk (see ``DiskCache/data(forKey:)``).
///
/// `open` and `fstat` can block as surely as `read`: on a cold directory entry or inode
/// the kernel reads them from the disk first. So the path is resolved with `openat2`'s
/// `RESOLVE_CACHED` (EAGAIN when a lookup would need the disk), `fstat` then reads the
/// inode the open already brought into memory, and the bytes come from `preadv2` with
/// `RWF_NOWAIT` (EAGAIN, or a short read, when some are not in the page cache). Any
/// answer other than a whole file or a definite miss hands the read to the I/O pool,
/// which repeats it with plain blocking calls.
extension DiskCache {
    enum NonBlockingRead {
        /// The read finished: the entry's data, or `nil` for a miss in every directory.
        case done(Data?)
        /// Some step would have waited for the disk.
        case wouldBlock
    }

    /// Reads `key`'s entry if the kernel can serve it from memory; the same result
    /// ``readDataSync(forKey:)`` would give, or ``NonBlockingRead/wouldBlock``.
    func readDataWithoutBlocking(forKey key: String) -> NonBlockingRead {
        let name = CacheKey.fileName(for: key)
        let file = path + "/" + name
        switch Self.readFileWithoutBlocking(atPath: file) {
        case .data(let data, let accessDate):
            if Self.needsAccessDateRefresh(accessDate) { queueFollowUp(for: name) { Self.touch(file) } }
            return .done(data)
        case .missing:
            break
        case .wouldBlock:
            // The pool's read also classifies and removes an unreadable file.
            return .wouldBlock
        }
        for directory in config.additionalCachePaths {
            switch Self.readFileWithoutBlocking(atPath: directory + "/" + name) {
            case .data(let data, _): return .done(data)
            case .missing: continue
            case .wouldBlock: return .wouldBlock
            }
        }
        return .done(nil)
    }

    private enum FastOutcome {
        case data(Data, accessDate: Double)
        case missing
        case wouldBlock
    }

    private static func readFileWithoutBlocking(atPath file: String) -> FastOutcome {
        let fd = wi_open_cached(file)
        guard fd >= 0 else {
            let code = errno
            return code == ENOENT || code == ENOTDIR ? .missing : .wouldBlock
        }
        defer { close(fd) }
        var info = stat()
        // Anything but a regular file (a FIFO, a device) is left to the pool's read, which
        // treats it as the blocking calls would.
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .wouldBlock }
        let size = Int(info.st_size)
        guard size > 0 else { return .data(Data(), accessDate: accessDate(info)) }
        guard let buffer = malloc(size) else { return .wouldBlock }
        var done = 0
        while done < size {
            let n = wi_pread_nowait(fd, buffer + done, size - done, off_t(done))
            if n == 0 { break }
            // Not cached (EAGAIN), not supported here, or only partly cached (a short read):
            // the pool reads the whole file.
            guard n == size - done else {
                free(buffer)
                return .wouldBlock
            }
            done += n
        }
        return .data(Data(bytesNoCopy: buffer, count: done, deallocator: .free), accessDate: accessDate(info))
    }
}
