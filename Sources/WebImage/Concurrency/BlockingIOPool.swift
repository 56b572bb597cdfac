import NIOPosix
import Synchronization

/// A bounded pool of threads for blocking calls: WebImage's disk-cache reads and `file:`
/// loads (``shared``) and host-name lookups (``SystemHostResolver/sharedPool``), each on a
/// pool of its own so a stalled resolver never holds up a cache read.
///
/// Blocking calls never run on Swift's cooperative pool (whose few threads every `async`
/// function shares) nor on a NIO event loop: `async` callers suspend while a pool thread
/// does the `open`/`read`/`getaddrinfo`, so a slow disk or DNS server occupies at most
/// ``threadCount`` threads and other tasks keep running. Work beyond the threads waits in
/// a line of at most ``maxPending`` calls; one more fails at once.
public final class BlockingIOPool: Sendable {
    /// The library's disk pool: 4 threads (I/O waits, not computes, so more threads than
    /// cores is right), started on first use and never shut down. A cache may use its own
    /// (``DiskCache/Config/ioPool``).
    public static let shared = BlockingIOPool(threadCount: 4, maxPending: 100_000)

    /// How many blocking calls run at once; later ones wait in order.
    public let threadCount: Int
    /// How many calls may wait for a thread; more fail with ``WebImageCodecs/WebImageError/Code/cancelled``.
    public let maxPending: Int
    private let pool: NIOThreadPool
    private let pending = Atomic<Int>(0)

    /// A pool of `threadCount` threads (clamped to 1…256) with a line of `maxPending`
    /// calls (at least 1). The threads start now and live as long as the pool.
    public init(threadCount: Int, maxPending: Int = 10_000) {
        self.threadCount = min(max(threadCount, 1), 256)
        self.maxPending = max(maxPending, 1)
        pool = NIOThreadPool(numberOfThreads: self.threadCount)
        pool.start()
    }

    deinit {
        pool.shutdownGracefully { _ in }
    }

    /// Runs `work` on a pool thread and returns its result; the calling task suspends
    /// meanwhile. Cancelling the task before the work started skips it.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/cancelled`` when the work was skipped or the line
    ///   was full.
    public func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws(WebImageError) -> T {
        guard enter() else { throw WebImageError.cancelled("The blocking-I/O pool's line is full (\(maxPending) calls)") }
        defer { leave() }
        do {
            return try await pool.runIfActive(work)
        } catch {
            throw WebImageError.cancelled("Blocking I/O was cancelled before it started")
        }
    }

    /// Queues `work` on a pool thread and returns at once; `false` (and `work` dropped)
    /// when the line is full.
    @discardableResult
    public func submit(_ work: @escaping @Sendable () -> Void) -> Bool {
        guard enter() else { return false }
        pool.submit { state in
            defer { self.leave() }
            if case .active = state { work() }
        }
        return true
    }

    /// Calls submitted and not yet finished.
    public var pendingCount: Int { pending.load(ordering: .relaxed) }

    private func enter() -> Bool {
        let now = pending.add(1, ordering: .relaxed).newValue
        if now > maxPending + threadCount {
            pending.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    private func leave() { pending.subtract(1, ordering: .relaxed) }
}
