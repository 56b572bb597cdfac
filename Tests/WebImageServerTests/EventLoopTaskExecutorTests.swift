import NIOCore
import NIOPosix
import Testing
@testable import WebImageServer

/// A task that prefers an `EventLoopTaskExecutor` runs on that event loop, its child tasks
/// and the nonisolated async functions it awaits included, also after a suspension
/// resumed from another thread.
@Suite("EventLoopTaskExecutor", .timeLimit(.minutes(1)))
struct EventLoopTaskExecutorTests {
    /// Whether this nonisolated async function runs on `loop`, before and after a sleep.
    nonisolated static func onLoop(_ loop: any EventLoop) async -> Bool {
        let before = loop.inEventLoop
        try? await Task.sleep(for: .milliseconds(5))
        return before && loop.inEventLoop
    }

    @Test func runsOnTheLoop() async {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        #expect(await Self.onLoop(loop) == false, "without the preference, the global pool")
        let executor = EventLoopTaskExecutor(loop)
        let results = await withTaskExecutorPreference(executor) {
            await withTaskGroup(of: Bool.self) { group in
                group.addTask { await Self.onLoop(loop) }
                let own = await Self.onLoop(loop)
                return [own] + (await group.reduce(into: []) { $0.append($1) })
            }
        }
        #expect(results == [true, true])
    }
}
