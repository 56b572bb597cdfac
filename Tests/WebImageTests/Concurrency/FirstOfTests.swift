import Foundation
import Synchronization
import Testing
@testable import WebImage

/// The race behind every wait with a deadline: the first answer wins, the rest are dropped.
@Suite("FirstOf and DeadlineTimer", .timeLimit(.minutes(1)))
struct FirstOfTests {
    @Test("the first answer wins; later ones are dropped")
    func firstWins() async {
        let won = Mutex<[Bool]>([])
        let value = await FirstOf<Int>.value(cancelled: { -1 }) { box in
            won.withLock { $0.append(box.resume(1)) }
            won.withLock { $0.append(box.resume(2)) }
        }
        #expect(value == 1)
        #expect(won.withLock { $0 } == [true, false])
    }

    @Test("an answer from another thread resumes the waiter")
    func answerFromElsewhere() async {
        let value = await FirstOf<Int>.value(cancelled: { -1 }) { box in
            _ = BlockingIOPool.shared.submit { box.resume(42) }
        }
        #expect(value == 42)
    }

    @Test("the deadline answers when nothing else does, after the deadline and not long before")
    func deadlineFires() async {
        let start = ContinuousClock.now
        let value = await FirstOf<String>.value(deadline: .now + .milliseconds(100), timedOut: { "late" }, cancelled: { "gone" }) { _ in }
        #expect(value == "late")
        #expect(ContinuousClock.now - start >= .milliseconds(90))
    }

    @Test("a deadline already past answers at once")
    func pastDeadline() async {
        let value = await FirstOf<String>.value(deadline: .now - .seconds(1), timedOut: { "late" }, cancelled: { "gone" }) { _ in }
        #expect(value == "late")
    }

    @Test("cancelling the task answers with cancelled at once, before the deadline")
    func cancellation() async throws {
        let waiter = Task {
            await FirstOf<String>.value(deadline: .now + .seconds(30), timedOut: { "late" }, cancelled: { "gone" }) { _ in }
        }
        try await Task.sleep(for: .milliseconds(20))
        let start = ContinuousClock.now
        waiter.cancel()
        #expect(await waiter.value == "gone")
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test("a task cancelled before it waits never runs start")
    func cancelledBefore() async {
        let started = Atomic<Bool>(false)
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await FirstOf<String>.value(cancelled: { "gone" }) { _ in started.store(true, ordering: .relaxed) }
        }
        #expect(await waiter.value == "gone")
        let didStart = started.load(ordering: .relaxed)
        #expect(!didStart)
    }

    @Test("a cancelled DeadlineTimer never fires")
    func timerCancel() async throws {
        let fired = Atomic<Int>(0)
        let cancelled = DeadlineTimer(at: .now + .milliseconds(30)) { fired.add(1, ordering: .relaxed) }
        cancelled.cancel()
        _ = DeadlineTimer(at: .now + .milliseconds(30)) { fired.add(10, ordering: .relaxed) }
        // Wait for the live timer (a loaded machine may run it late), then a while longer for
        // the cancelled one, which would fire at the same deadline.
        for _ in 0..<2500 where fired.load(ordering: .relaxed) < 10 { try await Task.sleep(for: .milliseconds(2)) }
        try await Task.sleep(for: .milliseconds(100))
        let total = fired.load(ordering: .relaxed)
        #expect(total == 10)
    }

    @Test("timers armed latest-first each fire at their own deadline, and none is left queued")
    func timersFireInOrder() async throws {
        let fired = Mutex<[(Int, ContinuousClock.Instant)]>([])
        let start = ContinuousClock.now
        // Each later arm is earlier than every one before it.
        for i in (1...5).reversed() {
            _ = DeadlineTimer(at: start + .milliseconds(40 * i)) { fired.withLock { $0.append((i, .now)) } }
        }
        let cancelled = DeadlineTimer(at: start + .milliseconds(60)) { fired.withLock { $0.append((99, .now)) } }
        cancelled.cancel()
        for _ in 0..<500 where fired.withLock({ $0.count }) < 5 { try await Task.sleep(for: .milliseconds(5)) }
        let times = fired.withLock { $0 }
        #expect(times.map(\.0) == [1, 2, 3, 4, 5])
        for (i, at) in times { #expect(at - start >= .milliseconds(40 * i - 2)) }
        // The first fired at its own deadline, not with the one armed first.
        #expect(times[0].1 - start < .milliseconds(190))
    }

    @Test("of a flood of timers, exactly the ones not cancelled fire")
    func timerFlood() async throws {
        let fired = Atomic<Int>(0)
        let start = ContinuousClock.now
        let timers = (0..<2000).map { i in
            DeadlineTimer(at: start + .milliseconds(Int64(1000 + i % 50))) { fired.add(1, ordering: .relaxed) }
        }
        for (i, timer) in timers.enumerated() where i % 2 == 0 { timer.cancel() }
        // Every cancel came before the earliest deadline, or the count below means nothing.
        try #require(ContinuousClock.now - start < .milliseconds(1000))
        for _ in 0..<500 where fired.load(ordering: .relaxed) < 1000 { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(100))
        let total = fired.load(ordering: .relaxed)
        #expect(total == 1000)
    }
}
