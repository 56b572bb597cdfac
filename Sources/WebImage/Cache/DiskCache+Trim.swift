#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension DiskCache {
    /// Temporary files older than this are left over from a crashed writer.
    static let staleTemporaryAge: Double = 3600

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
}
