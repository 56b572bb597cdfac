import Dispatch
import Foundation
import Synchronization

/// Runs blocking work (decoding, encoding) off the caller's thread, at most N at a time,
/// with a bounded line of work waiting for a slot.
///
/// Decoding is where the time and memory go, so the downloader and the cache send it
/// here: it never runs on a NIO event loop or ties up Swift's cooperative pool, and the
/// limit bounds how many full-size pixel buffers exist at once. Work waiting for a
/// slot starts in submission order; past ``maxPending`` waiting items, more work is
/// refused at once (``run(_:)`` throws, ``submit(_:cancelled:)`` runs its `cancelled`).
///
/// It is the library's one work pool: WebImage's `BlockingIOPool` (disk reads, `file:`
/// loads, host-name lookups) is an instance of it with threads for I/O, so slots, the
/// line, its bound and cancellation before start are written once.
public final class DecodeQueue: Sendable {
    /// The shared queue: as many concurrent decodes as there are active processors, and
    /// a line of up to 100,000 waiting items.
    public static let shared = DecodeQueue(maxConcurrent: ProcessInfo.processInfo.activeProcessorCount, maxPending: 100_000)

    /// The most work items that run at once.
    public let maxConcurrent: Int
    /// The most work items that wait for a slot; more are refused.
    public let maxPending: Int
    /// One serial queue per slot. Serial queues run on libdispatch's overcommitting
    /// threads, so a coder blocked in one slot holds that slot only; a concurrent queue
    /// would share the process's few non-overcommitting threads (one per core on Linux)
    /// with every other queue, and two stuck coders would stall every decode.
    private let slots: [DispatchQueue]

    private struct Item {
        var id: UInt64
        var work: @Sendable () -> Void
        var cancelled: @Sendable () -> Void
    }
    private struct State {
        var running = 0
        /// The slots no work runs on now.
        var freeSlots: [Int]
        var nextID: UInt64 = 0
        /// Work waiting for a slot, from `head` on. A slot is emptied when its work is
        /// taken: the closures capture whole loads, which must not outlive their work.
        var waiting: [Item?] = []
        var head = 0
    }
    private let state: Mutex<State>

    /// The range ``maxConcurrent`` is clamped to: 1…1024.
    public static let concurrencyRange: ClosedRange<Int> = 1...1024

    /// Creates a queue running at most `maxConcurrent` items at once, clamped to
    /// ``concurrencyRange``: 0 or less becomes 1, more than 1024 becomes 1024; and at most
    /// `maxPending` waiting for a slot (at least 1).
    public init(maxConcurrent: Int, maxPending: Int = 10_000, label: String = "WebImage.decode") {
        self.maxConcurrent = min(max(maxConcurrent, Self.concurrencyRange.lowerBound), Self.concurrencyRange.upperBound)
        self.maxPending = max(maxPending, 1)
        let count = self.maxConcurrent
        slots = (0..<count).map { DispatchQueue(label: "\(label).\($0)", qos: .userInitiated) }
        state = Mutex(State(freeSlots: Array((0..<count).reversed())))
    }

    /// Number of items running now.
    public var runningCount: Int { state.withLock { $0.running } }

    /// Items running or waiting for a slot now.
    public var pendingCount: Int { state.withLock { $0.running + $0.waiting.count - $0.head } }

    /// Runs `work` on the queue's threads when a slot is free and returns its result.
    ///
    /// If the task is cancelled while waiting for a slot, the work never runs and this
    /// throws ``WebImageError/Code/cancelled``; so it does at once when ``maxPending`` items
    /// wait already. Work that has started runs to the end.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        if Task.isCancelled { throw WebImageError.cancelled() }
        let slot = CancellationSlot()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let full = fullLineError
                let id = enqueue {
                    continuation.resume(with: Result { try work() })
                } cancelled: {
                    continuation.resume(throwing: WebImageError.cancelled())
                } refused: {
                    continuation.resume(throwing: full)
                }
                if let id { slot.set { self.cancel(id) } }
            }
        } onCancel: {
            slot.cancel()
        }
    }

    /// Queues `work`; it runs on the queue's threads when a slot is free. When
    /// ``maxPending`` items wait already, `work` is dropped and `cancelled` runs at once,
    /// on this thread.
    ///
    /// - Returns: an id for ``cancel(_:)``, which runs `cancelled` instead of `work`
    ///   if the work has not started yet (0 for refused work).
    @discardableResult
    public func submit(
        _ work: @escaping @Sendable () -> Void,
        cancelled: @escaping @Sendable () -> Void = {}
    ) -> UInt64 {
        enqueue(work, cancelled: cancelled, refused: cancelled) ?? 0
    }

    /// The error of work refused because the line is full.
    private var fullLineError: WebImageError {
        .cancelled("The work queue's line is full (\(maxPending) waiting)")
    }

    /// Starts `work` on a free slot or puts it in line; `nil` (and `refused` called) when
    /// the line is full.
    private func enqueue(
        _ work: @escaping @Sendable () -> Void, cancelled: @escaping @Sendable () -> Void,
        refused: () -> Void
    ) -> UInt64? {
        let (id, slot) = state.withLock { s -> (UInt64?, Int?) in
            if s.running < maxConcurrent, let slot = s.freeSlots.popLast() {
                s.nextID += 1
                s.running += 1
                return (s.nextID, slot)
            }
            guard s.waiting.count - s.head < maxPending else { return (nil, nil) }
            s.nextID += 1
            s.waiting.append(Item(id: s.nextID, work: work, cancelled: cancelled))
            return (s.nextID, nil)
        }
        guard let id else {
            refused()
            return nil
        }
        if let slot { start(work, on: slot) }
        return id
    }

    /// Withdraws queued work that has not started; its `cancelled` closure runs instead.
    public func cancel(_ id: UInt64) {
        let removed = state.withLock { s -> Item? in
            guard let index = s.waiting[s.head...].firstIndex(where: { $0?.id == id }) else { return nil }
            return s.waiting.remove(at: index)
        }
        removed?.cancelled()
    }

    private func start(_ work: @escaping @Sendable () -> Void, on slot: Int) {
        slots[slot].async {
            work()
            self.finished(slot)
        }
    }

    /// The work on `slot` ended: the next waiting item runs on it, or it becomes free.
    private func finished(_ slot: Int) {
        let next = state.withLock { s -> Item? in
            guard s.head < s.waiting.count else {
                s.running -= 1
                s.freeSlots.append(slot)
                return nil
            }
            let item = s.waiting[s.head]
            s.waiting[s.head] = nil
            s.head += 1
            // Drop the emptied slots now and then so the array does not grow without bound.
            if s.head == s.waiting.count {
                s.waiting.removeAll(keepingCapacity: true)
                s.head = 0
            } else if s.head > 64 && s.head * 2 > s.waiting.count {
                s.waiting.removeFirst(s.head)
                s.head = 0
            }
            return item
        }
        if let next { start(next.work, on: slot) }
    }
}
