import Dispatch
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// The decode queue runs work in order, at most N at once, and keeps nothing of work
/// that ended: the closures capture the loads (and their operations) that submitted them.
@Suite("DecodeQueue", .timeLimit(.minutes(1)))
struct DecodeQueueTests {
    /// Counts how many markers were deallocated.
    final class Releases: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    /// Something a work item captures; reports its deallocation.
    final class Marker: Sendable {
        let releases: Releases
        init(_ releases: Releases) { self.releases = releases }
        deinit { releases.add() }
    }

    /// Runs of work items, in the order they started.
    final class Log: Sendable {
        private let entries = Mutex<[Int]>([])
        var all: [Int] { entries.withLock { $0 } }
        func append(_ n: Int) { entries.withLock { $0.append(n) } }
    }

    /// Occupies every slot of `queue` until the returned semaphore is signalled that many times.
    private func block(_ queue: DecodeQueue) -> DispatchSemaphore {
        let gate = DispatchSemaphore(value: 0)
        for _ in 0..<queue.maxConcurrent { queue.submit { gate.wait() } }
        return gate
    }

    private func open(_ gate: DispatchSemaphore, _ queue: DecodeQueue) {
        for _ in 0..<queue.maxConcurrent { gate.signal() }
    }

    @Test("work that waited for a slot is released once it ran", arguments: [1, 3, 70])
    func waitedWorkIsReleased(count: Int) async {
        let queue = DecodeQueue(maxConcurrent: 1)
        let gate = block(queue)
        let releases = Releases()
        let ran = Log()
        for n in 0..<count {
            let marker = Marker(releases)
            queue.submit { withExtendedLifetime(marker) { ran.append(n) } }
        }
        open(gate, queue)
        #expect(await ManagerTestKit.eventually { ran.all.count == count })
        #expect(await ManagerTestKit.eventually { releases.value == count },
                "\(count - releases.value) of \(count) finished work items are still retained")
    }

    @Test("withdrawn work is released and its cancel handler runs instead")
    func cancelledWorkIsReleased() async {
        let queue = DecodeQueue(maxConcurrent: 1)
        let gate = block(queue)
        let releases = Releases()
        let log = Log()
        let id = { () -> UInt64 in
            let marker = Marker(releases)
            return queue.submit { withExtendedLifetime(marker) { log.append(1) } } cancelled: { log.append(-1) }
        }()
        queue.cancel(id)
        #expect(log.all == [-1])
        #expect(releases.value == 1)
        open(gate, queue)
        #expect(await ManagerTestKit.eventually { queue.runningCount == 0 })
        #expect(log.all == [-1])
    }

    @Test("the line is bounded: past maxPending waiting items, run throws at once and submit runs its cancel handler")
    func boundedLine() async throws {
        let queue = DecodeQueue(maxConcurrent: 1, maxPending: 3)
        let gate = block(queue)
        let log = Log()
        for n in 0..<3 { queue.submit { log.append(n) } }
        #expect(queue.pendingCount == 4, "one running, three waiting: the line is full")
        let refused = Log()
        let id = queue.submit { log.append(99) } cancelled: { refused.append(-1) }
        #expect(id == 0 && refused.all == [-1], "refused at once, on the submitting thread")
        do {
            _ = try await queue.run { 1 }
            Issue.record("a run past the full line was queued")
        } catch let error as WebImageError {
            #expect(error.code == .cancelled && error.message.contains("line is full"))
        }
        #expect(queue.pendingCount == 4, "refused work takes no place in line")
        open(gate, queue)
        #expect(await ManagerTestKit.eventually { log.all == [0, 1, 2] })
        #expect(try await queue.run { 7 } == 7, "the line has room again")
        #expect(await ManagerTestKit.eventually { queue.pendingCount == 0 })
    }

    @Test("a task cancelled while its work waits for a slot leaves the line; the work never runs")
    func cancelledRunLeavesTheLine() async throws {
        let queue = DecodeQueue(maxConcurrent: 1, maxPending: 1)
        let gate = block(queue)
        let ran = Log()
        let waiting = Task { try await queue.run { ran.append(1) } }
        #expect(await ManagerTestKit.eventually { queue.pendingCount == 2 })
        waiting.cancel()
        await #expect(throws: WebImageError.self) { try await waiting.value }
        #expect(queue.pendingCount == 1, "the cancelled run's place in line is free again")
        queue.submit { ran.append(2) }
        open(gate, queue)
        #expect(await ManagerTestKit.eventually { ran.all == [2] })
    }

    @Test("waiting work starts in submission order, also past the queue's compaction")
    func waitingWorkRunsInOrder() async {
        let queue = DecodeQueue(maxConcurrent: 1)
        let gate = block(queue)
        let log = Log()
        let ids = (0..<200).map { n in queue.submit { log.append(n) } }
        queue.cancel(ids[148])
        open(gate, queue)
        #expect(await ManagerTestKit.eventually { log.all.count == 199 })
        #expect(log.all == Array(0..<200).filter { $0 != 148 })
    }
}
