#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// One size and age limit for several disk caches under a common root, kept by every
/// process that shares the root.
///
/// `webimage serve` keeps sources and results in two ``DiskCache``s under one directory
/// and may run as several instances on it; a per-cache limit would let the directory
/// grow to the sum of the limits times the instances. A budget instead keeps one
/// ledger for the whole root: a small file (`.budget`) holding the bytes of every entry
/// under it, read and updated under an exclusive `flock` by each write and removal of
/// every cache, in every process, that uses it. A write that takes the total over
/// ``maxBytes`` trims right away, in the same locked step: the least recently read
/// entries of all member directories go until the total is at most ``trimTarget``.
/// So outside a write's own locked step (the new entry linked, then the trim) the root
/// never holds more than ``maxBytes`` of entries; files being written are unnamed or
/// hidden, and not counted, until they are linked or renamed into place.
///
/// Entries not read for ``maxAge`` seconds are removed by the same pass, run at least
/// every ``sweepInterval`` while writes happen and when a member cache opens. The
/// ledger is recounted from the directories on every trim and sweep, so a process that
/// died between writing an entry and updating the ledger costs at most one entry of
/// drift until then.
///
/// Members register with ``DiskCache/Config/budget``; all work runs on the writing
/// cache's `ioQueue` (blocking file calls, never on the cooperative pool).
public final class DiskBudget: Sendable {
    /// Total bytes of entry files allowed under the root (0: no size limit).
    public let maxBytes: Int
    /// Seconds an entry may go unread before it is removed (negative: never).
    public let maxAge: TimeInterval
    /// What a trim brings the total down to: 80 % of ``maxBytes``, so trims (which list
    /// every member directory) happen once per fifth of the budget written, not per write.
    public var trimTarget: Int { maxBytes / 5 * 4 }
    /// How often, at most, writes also run the age sweep.
    public let sweepInterval: TimeInterval

    let root: String
    private let ledgerPath: String
    private struct State {
        var members: [String] = []
        var lastSweep: Double = 0
    }
    private let state = Mutex(State())

    /// A budget for the caches under `root` (created when needed).
    ///
    /// - Parameters:
    ///   - root: the directory the caches share (created when needed).
    ///   - maxBytes: bytes allowed (negative becomes 0, no limit).
    ///   - maxAge: seconds unread before removal; NaN, negative or infinite never expires.
    public init(root: URL, maxBytes: Int, maxAge: TimeInterval) {
        self.root = root.standardizedFileURL.path
        ledgerPath = self.root + "/.budget"
        self.maxBytes = max(0, maxBytes)
        self.maxAge = maxAge.isFinite && maxAge >= 0 ? maxAge : -1
        sweepInterval = self.maxAge > 0 ? min(max(self.maxAge / 10, 1), 3600) : 3600
    }

    /// Adds a cache directory to the budget (its files count and may be trimmed).
    func register(_ directory: String) {
        state.withLock { if !$0.members.contains(directory) { $0.members.append(directory) } }
    }

    /// Runs `change`, a file operation that returns by how many bytes it changed the
    /// entries, with the ledger locked, then trims when the total is over the limit or a
    /// sweep is due. The operation and its accounting are one step for every process, so
    /// a trim never counts a file whose write is not yet charged. Runs on the writing
    /// cache's `ioQueue`.
    func update<T>(_ change: () -> (delta: Int, result: T)) -> T {
        let now = Date().timeIntervalSince1970
        let sweepDue = maxAge >= 0 && state.withLock { now - $0.lastSweep >= sweepInterval }
        return withLedger { total in
            let (delta, value) = change()
            if let known = total, !sweepDue {
                let updated = max(0, known + delta)
                if maxBytes == 0 || updated <= maxBytes { return (updated, value) }
            }
            return (trimSync(now: now), value)
        }
    }

    /// Recounts and applies both limits now (a member cache opening, `removeExpiredData`).
    func enforce() {
        let now = Date().timeIntervalSince1970
        withLedger { _ in (trimSync(now: now), ()) }
    }

    /// The bytes the ledger holds (tests and `cache stats`), recounting when it has none.
    public func currentBytes() -> Int {
        withLedger { total in
            let value = total ?? countSync()
            return (value, value)
        }
    }

    // MARK: Ledger

    /// Runs `update` with the ledger's total (`nil` when missing or unreadable) under an
    /// exclusive lock, and writes back the total it returns.
    private func withLedger<T>(_ update: (Int?) -> (total: Int, result: T)) -> T {
        var fd = open(ledgerPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 && errno == ENOENT {
            try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            fd = open(ledgerPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else {
            // No ledger (read-only root): the operation still runs, counted from a listing.
            return update(nil).result
        }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        let text = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
        let total = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0 >= 0 ? $0 : nil }
        let (newTotal, result) = update(total)
        let updated = Array("\(newTotal)\n".utf8)
        _ = updated.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        _ = ftruncate(fd, off_t(updated.count))
        return result
    }

    // MARK: Trimming

    private struct Item {
        var path: String
        var sidecar: String
        var size: Int
        var accessDate: Double
    }

    /// Removes expired entries, then the least recently read down to ``trimTarget`` when
    /// over ``maxBytes``; returns the bytes left. Called with the ledger locked.
    private func trimSync(now: Double) -> Int {
        var items = listSync()
        var total = 0
        var kept: [Item] = []
        for item in items {
            if maxAge >= 0 && now - item.accessDate > maxAge {
                remove(item)
            } else {
                kept.append(item)
                total += item.size
            }
        }
        if maxBytes > 0 && total > maxBytes {
            kept.sort { $0.accessDate < $1.accessDate }
            for item in kept where total > trimTarget {
                remove(item)
                total -= item.size
            }
        }
        items = []
        state.withLock { $0.lastSweep = now }
        return total
    }

    private func countSync() -> Int { listSync().reduce(0) { $0 + $1.size } }

    private func remove(_ item: Item) {
        unlink(item.path)
        unlink(item.sidecar)
    }

    /// Every entry file of every member directory (hidden files are temporary files,
    /// sidecars and the ledger: not entries).
    private func listSync() -> [Item] {
        let members = state.withLock { $0.members }
        var items: [Item] = []
        for directory in members {
            for name in DiskCache.listNames(inDirectory: directory, includingHidden: false) {
                var info = stat()
                let file = directory + "/" + name
                guard lstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                items.append(Item(
                    path: file, sidecar: directory + "/" + DiskCache.sidecarName(forName: name),
                    size: Int(info.st_size), accessDate: DiskCache.accessDate(info)))
            }
        }
        return items
    }
}
