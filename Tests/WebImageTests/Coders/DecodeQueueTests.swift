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
