import Foundation
import Glibc
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// Where a disk-cache read runs: on the calling task when the kernel has the file cached
/// (no thread hop), on the I/O pool otherwise; and what opening a cache costs.
@Suite("DiskCache: the read path and the sweep on open", .timeLimit(.minutes(1)))
struct DiskCacheReadPathTests {
    /// An I/O pool of one thread, held by a gate from `block()` until `release()`.
    struct BlockedPool {
        let pool = BlockingIOPool(threadCount: 1)
        let gate = DispatchSemaphore(value: 0)
        func block() { pool.submit { [gate] in gate.wait() } }
        func release() { gate.signal() }
    }

    /// Drops `path`'s pages from the page cache (written back first), so the next read
    /// must go to the disk.
    static func evict(_ path: String) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return }
        fsync(fd)
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        close(fd)
    }

    @Test("a hit the kernel has cached is read on the calling task, without the I/O pool")
    func cachedHitSkipsThePool() async throws {
        let directory = try TemporaryDirectory()
        let blocked = BlockedPool()
        var config = DiskCache.Config()
        config.ioPool = blocked.pool
        let cache = DiskCache(directory: directory.url, config: config)
        let data = Data(repeating: 7, count: 50_000)
        try await cache.store(data, forKey: "hot")
        // A name never looked up needs the file system's lookup once (the pool); after that
        // the kernel remembers the miss too.
        #expect(await cache.data(forKey: "missing") == nil)
        // That call has answered; the pool counts it until its thread has also finished
        // its bookkeeping, which may come a moment later.
        for _ in 0..<1_000 where blocked.pool.pendingCount > 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(blocked.pool.pendingCount == 0)
        // The pool's only thread is held: a read that needed it could not finish.
        blocked.block()
        for _ in 0..<100 { #expect(await cache.data(forKey: "hot") == data) }
        #expect(await cache.data(forKey: "missing") == nil)
        #expect(blocked.pool.pendingCount == 1)
        blocked.release()
    }

    @Test("a hit whose pages are not in the page cache is read on the I/O pool")
    func coldHitUsesThePool() async throws {
        let directory = try TemporaryDirectory()
        var config = DiskCache.Config()
        let blocked = BlockedPool()
        config.ioPool = blocked.pool
        let cache = DiskCache(directory: directory.url, config: config)
        let data = Data(repeating: 9, count: 200_000)
        try await cache.store(data, forKey: "cold")
        Self.evict(cache.cachePath(forKey: "cold"))
        blocked.block()
        let done = Locked(false)
        let read = Task {
            let data = await cache.data(forKey: "cold")
            done.withLock { $0 = true }
            return data
        }
        // The read has either finished or queued behind the blocked thread (a loaded machine
        // may take a while to get there).
        for _ in 0..<2500 where !done.withLock({ $0 }) && blocked.pool.pendingCount < 2 {
            try await Task.sleep(for: .milliseconds(2))
        }
        // tmpfs keeps every page in memory (nothing to evict): there the read is done already.
        if !done.withLock({ $0 }) {
            #expect(blocked.pool.pendingCount == 2, "the read waits for the pool's only thread")
        }
        blocked.release()
        #expect(await read.value == data)
    }

    @Test("opening a cache sweeps once per interval and limits: later opens cost one stat, not a listing")
    func sweepOncePerInterval() async throws {
        let directory = try TemporaryDirectory()
        let limits = DiskCache.Config(maxDiskAge: 3600)
        let first = DiskCache(directory: directory.url, config: limits)
        for i in 0..<5 { try await first.store(Data("x".utf8), forKey: "k\(i)") }
        await first.removeExpiredData()
        let old = first.cachePath(forKey: "k0")
        try TemporaryDirectory.age(old, secondsAgo: 7200)

        // Given a directory swept a moment ago under the same limits, opening another cache
        // on it does not list it again: the expired entry is still there.
        let second = DiskCache(directory: directory.url, config: limits)
        await second.flush()
        #expect(FileManager.default.fileExists(atPath: old))
        // Under other limits the marker does not stand for them: this open sweeps.
        let stricter = DiskCache(directory: directory.url, config: DiskCache.Config(maxDiskAge: 1800))
        await stricter.flush()
        #expect(!FileManager.default.fileExists(atPath: old))
        #expect(await stricter.totalCount() == 4)
        // And once the marker is older than the interval, the same limits sweep again.
        try TemporaryDirectory.age(first.cachePath(forKey: "k1"), secondsAgo: 7200)
        // The directory records the sweep in an extended attribute, not a file.
        #expect(TemporaryDirectory.names(in: directory.url).count == 4)
        let stamp = "3600 0 \(Date().timeIntervalSince1970 - DiskCache.sweepInterval - 60)"
        _ = Data(stamp.utf8).withUnsafeBytes { DiskCache.setAttribute(directory.path, $0, name: DiskCache.sweepAttributeName) }
        let later = DiskCache(directory: directory.url, config: limits)
        await later.flush()
        #expect(await later.totalCount() == 3)
    }

    @Test("an uncounted cache with a size limit counts once, at its first write, and trims")
    func sizeLimitAfterSkippedSweep() async throws {
        let directory = try TemporaryDirectory()
        let limits = DiskCache.Config(maxDiskSize: 4000)
        let writer = DiskCache(directory: directory.url, config: limits)
        await writer.flush()
        let reopened = DiskCache(directory: directory.url, config: limits)
        await reopened.flush()
        for i in 0..<8 { try await reopened.store(Data(repeating: 1, count: 1000), forKey: "k\(i)") }
        #expect(await reopened.totalSize() <= 4000)
    }
}
