import WebImageCodecs

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
    /// The library's one work pool, with threads for I/O: slots, the bounded line and
    /// cancellation before start are the decode queue's. Its slots are serial dispatch
    /// queues, so a call blocked in `open` or `getaddrinfo` holds its own thread only.
    private let queue: DecodeQueue

    /// A pool of `threadCount` threads (clamped to 1…256) with a line of `maxPending`
    /// calls (at least 1). A thread is started when a call first needs it.
    public init(threadCount: Int, maxPending: Int = 10_000) {
        self.threadCount = min(max(threadCount, 1), 256)
        self.maxPending = max(maxPending, 1)
        queue = DecodeQueue(maxConcurrent: self.threadCount, maxPending: self.maxPending, label: "WebImage.io")
    }

    /// Runs `work` on a pool thread and returns its result; the calling task suspends
    /// meanwhile. Cancelling the task before the work started skips it.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/cancelled`` when the work was skipped or the line
    ///   was full.
    public func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws(WebImageError) -> T {
        do {
            return try await queue.run(work)
        } catch let error as WebImageError {
            throw error
        } catch {
            throw WebImageError.cancelled("Blocking I/O was cancelled before it started")
        }
    }

    /// Queues `work` on a pool thread and returns at once; `false` (and `work` dropped)
    /// when the line is full.
    @discardableResult
    public func submit(_ work: @escaping @Sendable () -> Void) -> Bool {
        queue.submit(work) != 0
    }

    /// Calls submitted and not yet finished.
    public var pendingCount: Int { queue.pendingCount }
}
