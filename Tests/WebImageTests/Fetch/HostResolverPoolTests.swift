import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Name lookups run on a pool of their own, bounded in time: a busy disk pool never
/// holds up a lookup, and a stalled resolver pool never holds up its callers for long.
@Suite("SystemHostResolver: its own pool and a timeout", .timeLimit(.minutes(1)))
struct HostResolverPoolTests {
    /// Occupies every thread of `pool` until `release` is signalled.
    static func occupy(_ pool: BlockingIOPool, release: DispatchSemaphore) {
        for _ in 0..<pool.threadCount { pool.submit { release.wait() } }
    }

    @Test("a lookup completes while every disk-pool thread is stuck")
    func lookupBesideAStuckDiskPool() async throws {
        let disk = BlockingIOPool(threadCount: 2)
        let release = DispatchSemaphore(value: 0)
        Self.occupy(disk, release: release)
        defer { for _ in 0..<disk.threadCount { release.signal() } }
        let addresses = try await SystemHostResolver().addresses(for: "localhost", port: 80)
        #expect(addresses.contains { $0.kind == .loopback })
        #expect(SystemHostResolver.sharedPool !== BlockingIOPool.shared)
    }

    @Test("a lookup that cannot start in time fails with cannotFindHost after the timeout")
    func timeout() async throws {
        let pool = BlockingIOPool(threadCount: 1)
        let release = DispatchSemaphore(value: 0)
        Self.occupy(pool, release: release)
        defer { release.signal() }
        let resolver = SystemHostResolver(pool: pool, timeout: .milliseconds(200))
        let start = ContinuousClock.now
        await #expect(throws: WebImageError.self) { _ = try await resolver.addresses(for: "localhost", port: 80) }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test("the pool's line is bounded: a call past it is refused at once")
    func boundedLine() async throws {
        let pool = BlockingIOPool(threadCount: 1, maxPending: 1)
        let release = DispatchSemaphore(value: 0)
        pool.submit { release.wait() }        // running
        pool.submit { }                       // waiting: the line is now full
        defer { release.signal() }
        await #expect(throws: WebImageError.self) { _ = try await pool.run { 1 } }
    }
}
