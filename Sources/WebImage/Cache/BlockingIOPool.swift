import NIOPosix

/// The bounded pool of threads on which WebImage does blocking file I/O: disk-cache
/// reads and `file:` loads.
///
/// Blocking calls never run on Swift's cooperative pool (whose few threads every `async`
/// function shares) nor on a NIO event loop: `async` callers suspend while a pool thread
/// does the `open`/`read`, so a slow or stalled disk occupies at most ``threadCount``
/// threads and other tasks keep running. Writes to a disk cache keep their order on that
/// cache's own serial queue (``DiskCache/ioQueue``), a pool of one.
public final class BlockingIOPool: Sendable {
    /// The library's pool: 4 threads (I/O waits, not computes, so more threads than
    /// cores is right), started on first use and never shut down.
    public static let shared = BlockingIOPool(threadCount: 4)

    /// How many blocking calls run at once; later ones wait in order.
    public let threadCount: Int
    private let pool: NIOThreadPool

    private init(threadCount: Int) {
        self.threadCount = threadCount
        pool = NIOThreadPool(numberOfThreads: threadCount)
        pool.start()
    }

    /// Runs `work` on a pool thread and returns its result; the calling task suspends
    /// meanwhile. Cancelling the task before the work started skips it.
    ///
    /// - Throws: ``WebImageError/Code/cancelled`` when the work was skipped.
    public func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws(WebImageError) -> T {
        do {
            return try await pool.runIfActive(work)
        } catch {
            throw WebImageError.cancelled("Blocking I/O was cancelled before it started")
        }
    }

    /// Queues `work` on a pool thread and returns at once.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        pool.submit { state in
            if case .active = state { work() }
        }
    }
}
