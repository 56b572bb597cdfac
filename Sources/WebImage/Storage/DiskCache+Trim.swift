#if canImport(Glibc)
import CXattr
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension DiskCache {
    /// Temporary files older than this are left over from a crashed writer.
    static let staleTemporaryAge: Double = 3600
    /// How long a sweep under the same limits stands for every cache opened on the directory.
    static let sweepInterval: Double = 3600

    /// The extended attribute of the directory recording its last sweep: the limits and
    /// the time (`"<maxDiskAge> <maxDiskSize> <seconds since 1970>"`).
    static let sweepAttributeName = "user.webimage.swept"

    /// The sweep an open queues: ``removeExpiredDataSync()``, unless the directory was swept
    /// under the same limits within ``sweepInterval`` (by any process, as its
    /// ``sweepAttributeName`` attribute says) or does not exist. Costs one `getxattr` when
    /// it is skipped. Runs on `ioQueue`.
    func sweepOnOpenSync() {
        guard config.budget == nil else {
            removeExpiredDataSync()
            return
        }
        guard access(path, F_OK) == 0 else { return }
        if let stored = Self.getAttribute(path, name: Self.sweepAttributeName),
           let text = String(data: stored, encoding: .utf8), text.hasPrefix(sweepLimits + " "),
           let time = Double(text.dropFirst(sweepLimits.count + 1)),
           Date().timeIntervalSince1970 - time < Self.sweepInterval {
            return
        }
        removeExpiredDataSync()
    }

    private var sweepLimits: String { "\(Int(config.maxDiskAge)) \(config.maxDiskSize)" }

    /// Records a sweep under this cache's limits (file systems without extended attributes
    /// record nothing: every open sweeps there).
    private func markSwept(now: Double) {
        let value = Data("\(sweepLimits) \(now)".utf8)
        _ = value.withUnsafeBytes { Self.setAttribute(path, $0, name: Self.sweepAttributeName) }
    }

    /// Applies the age rule, then the size rule (down to half of the limit), and
    /// recounts ``knownSize``. Runs on `ioQueue`.
    func removeExpiredDataSync() {
        let now = Date().timeIntervalSince1970
        if let budget = config.budget {
            budget.enforce()
            knownSize.withLock { $0 = nil }
            removeStaleTemporaryFilesSync(now: now)
            return
        }
        var kept: [Entry] = []
        var total = 0
        for entry in listEntriesSync() {
            if config.maxDiskAge >= 0 && now - entry.accessDate > config.maxDiskAge {
                removeFileSync(named: entry.name)
            } else {
                kept.append(entry)
                total += entry.size
            }
        }
        if config.maxDiskSize > 0 && total > config.maxDiskSize {
            let target = config.maxDiskSize / 2
            kept.sort { $0.accessDate < $1.accessDate }
            for entry in kept where total > target {
                removeFileSync(named: entry.name)
                total -= entry.size
            }
        }
        knownSize.withLock { $0 = total }
        removeStaleTemporaryFilesSync(now: now)
        markSwept(now: now)
    }

    /// Removes temporary files a writer that died mid-write left behind, and sidecars
    /// whose entry is gone (another process removed the entry).
    private func removeStaleTemporaryFilesSync(now: Double) {
        for name in Self.listNames(inDirectory: path, includingHidden: true) where name.hasPrefix(".") {
            let file = path + "/" + name
            if name.hasPrefix(".tmp-") {
                var info = stat()
                if lstat(file, &info) == 0, now - Self.accessDate(info) > Self.staleTemporaryAge {
                    unlink(file)
                }
            } else if let entryName = Self.entryName(forSidecar: name), access(path + "/" + entryName, F_OK) != 0 {
                unlink(file)
            }
        }
    }

    /// Removes what a cache left in `directory`, a folder of a former disk format: the files
    /// named as this cache names its entries (``CacheKey/fileName(for:)``), their sidecars
    /// and a writer's temporary files; then the folder, if nothing else is left in it.
    /// Anything else in it stays, so a folder that was not a cache's loses nothing.
    /// Blocking: runs on the calling thread (a cache's I/O queue).
    package static func removeFormerFolderSync(at directory: String) {
        for name in listNames(inDirectory: directory, includingHidden: true) {
            let entry = entryName(forSidecar: name) ?? name
            if CacheKey.isFileName(entry) || name.hasPrefix(".tmp-") { unlink(directory + "/" + name) }
        }
        rmdir(directory)
    }
}
