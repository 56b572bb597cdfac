import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat

@Suite("ImagePrefetcher", .timeLimit(.minutes(1)))
struct ImagePrefetcherTests {
    /// Serves `count` PNGs under `prefix` and returns their URLs.
    private func serve(_ f: ManagerFixture, _ prefix: String, count: Int, delay: Duration = .zero) -> [URL] {
        (0..<count).map { f.serve("/\(prefix)\($0).png", ManagerTestKit.png(seed: UInt8($0)), delay: delay) }
    }

    @Test("every URL is loaded into the cache; failures are counted as skipped; progress counts up, skipped included, on the calling task")
    func counts() async throws {
        try await ManagerFixture.with { f in
            let prefetcher = ImagePrefetcher(manager: f.manager)
            prefetcher.options = [.lowPriority, .waitStoreCache]
            let urls = serve(f, "p", count: 5) + [f.origin.url("/gone.png")]
            let progress = Locked<[[Int]]>([])
            // The prefetcher owns no queue: its reports run on the task that awaits it.
            let caller = withUnsafeCurrentTask { $0?.hashValue }
            let onCaller = Locked<[Bool]>([])
            let result = await prefetcher.prefetch(urls) { finished, skipped, total in
                #expect(total == 6)
                progress.withLock { $0.append([finished, skipped]) }
                let here = withUnsafeCurrentTask { $0?.hashValue }
                onCaller.withLock { $0.append(caller != nil && here == caller) }
            }
            #expect(onCaller.withLock { $0 } == Array(repeating: true, count: 6))
            #expect(result == PrefetchResult(finishedCount: 6, skippedCount: 1))
            // Every report ran before the result, in counting order; the one 404 is counted
            // as skipped from the report of the URL it ended with (loads end in any order).
            let reports = progress.withLock { $0 }
            #expect(reports.map { $0[0] } == Array(1...6))
            let skipped = reports.map { $0[1] }
            #expect(skipped.first.map { $0 <= 1 } == true && skipped.last == 1 && skipped == skipped.sorted())
            for url in urls.dropLast() {
                #expect(await f.cache.containsImage(forKey: url.absoluteString) != .none)
            }
            #expect(!prefetcher.isPrefetching)
            #expect(!f.manager.isRunning)
        }
    }

    @Test("no more than maxConcurrentPrefetchCount loads run at once")
    func concurrencyLimit() async throws {
        try await ManagerFixture.with { f in
            let prefetcher = ImagePrefetcher(manager: f.manager)
            prefetcher.maxConcurrentPrefetchCount = 2
            let urls = serve(f, "c", count: 6, delay: .milliseconds(100))
            let peak = Locked(0)
            let watcher = Task {
                while !Task.isCancelled {
                    let running = f.manager.runningOperationCount
                    peak.withLock { $0 = max($0, running) }
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
            let result = await prefetcher.prefetch(urls)
            watcher.cancel()
            #expect(result == PrefetchResult(finishedCount: 6, skippedCount: 0))
            #expect(peak.withLock { $0 } <= 2)
            #expect(peak.withLock { $0 } >= 1)
        }
    }

    @Test("two prefetches at once keep separate counts")
    func separateCounts() async throws {
        try await ManagerFixture.with { f in
            let prefetcher = ImagePrefetcher(manager: f.manager)
            let a = serve(f, "a", count: 3, delay: .milliseconds(50))
            let b = serve(f, "b", count: 5, delay: .milliseconds(50)) + [f.origin.url("/b404.png")]
            async let first = prefetcher.prefetch(a)
            async let second = prefetcher.prefetch(b)
            let (ra, rb) = await (first, second)
            #expect(ra == PrefetchResult(finishedCount: 3, skippedCount: 0))
            #expect(rb == PrefetchResult(finishedCount: 6, skippedCount: 1))
        }
    }

    @Test("an empty list completes with (0, 0) at once")
    func emptyList() async throws {
        try await ManagerFixture.with { f in
            let prefetcher = ImagePrefetcher(manager: f.manager)
            let recorded = Locked<(Int, Int)?>(nil)
            let token = prefetcher.prefetchURLs([], completed: { finished, skipped in recorded.withLock { $0 = (finished, skipped) } })
            #expect(token.isFinished)
            #expect(await ManagerTestKit.eventually(1) { recorded.withLock { $0 } != nil })
            #expect(recorded.withLock { v in v.map { [$0.0, $0.1] } } == [0, 0])
            #expect(await prefetcher.prefetch([]) == PrefetchResult(finishedCount: 0, skippedCount: 0))
        }
    }

    @Test("cancelling the downloader mid-prefetch completes with the skipped count, never hangs")
    func downloaderCancelled() async throws {
        try await ManagerFixture.with { f in
            let prefetcher = ImagePrefetcher(manager: f.manager)
            let fast = serve(f, "f", count: 2)
            let slow = serve(f, "s", count: 4, delay: .seconds(5))
            prefetcher.maxConcurrentPrefetchCount = 6
            let task = Task { await prefetcher.prefetch(fast + slow) }
            #expect(await ManagerTestKit.eventually { (0..<4).allSatisfy { f.origin.requestCount("/s\($0).png") == 1 } })
            #expect(await ManagerTestKit.eventually { fast.allSatisfy { f.cache.imageFromMemory(forKey: $0.absoluteString) != nil } })
            f.downloader.cancelAllDownloads()
            let result = await task.value
            #expect(result == PrefetchResult(finishedCount: 6, skippedCount: 4))
        }
    }

    @Test("cancelling a token skips its unstarted URLs and leaves the other prefetch alone")
    func tokenCancel() async throws {
        try await ManagerFixture.with { f in
            let prefetcher = ImagePrefetcher(manager: f.manager)
            prefetcher.maxConcurrentPrefetchCount = 1
            let slow = serve(f, "x", count: 4, delay: .seconds(5))
            let other = serve(f, "o", count: 2)
            let done = Locked<(Int, Int)?>(nil)
            let token = prefetcher.prefetchURLs(slow, completed: { finished, skipped in done.withLock { $0 = (finished, skipped) } })
            #expect(await ManagerTestKit.eventually { f.origin.requestCount("/x0.png") == 1 })
            let otherTask = Task { await prefetcher.prefetch(other) }
            token.cancel()
            #expect(await ManagerTestKit.eventually { done.withLock { $0 } != nil })
            #expect(done.withLock { v in v.map { [$0.0, $0.1] } } == [4, 4])
            #expect(await otherTask.value == PrefetchResult(finishedCount: 2, skippedCount: 0))
            #expect(f.origin.requestCount("/x1.png") == 0)
        }
    }

    @Test("cancelPrefetching completes every running prefetch")
    func cancelAll() async throws {
        try await ManagerFixture.with { f in
            let prefetcher = ImagePrefetcher(manager: f.manager)
            let slow = serve(f, "z", count: 3, delay: .seconds(5))
            let task = Task { await prefetcher.prefetch(slow) }
            #expect(await ManagerTestKit.eventually { prefetcher.isPrefetching && f.origin.requestCount("/z0.png") == 1 })
            prefetcher.cancelPrefetching()
            #expect(await task.value == PrefetchResult(finishedCount: 3, skippedCount: 3))
            #expect(!prefetcher.isPrefetching)
        }
    }
}
