import Foundation
import Testing
@testable import WebImage
@testable import WebImageCompat
import WebImageTestOrigin

/// SDWebImagePrefetcher's callback form: `prefetchURLs(_:progress:completed:)` reports on the
/// prefetchers' shared serial queue, progress in counting order, then one completion.
@Suite("Prefetcher callback form", .timeLimit(.minutes(1)))
struct PrefetcherCallbackTests {
    enum Event: Equatable, Sendable { case progress(Int, Int), completed(Int, Int) }

    @Test("prefetchURLs: progress counts up, then one completion with (finished, skipped), all on the prefetcher's queue")
    func prefetchURLs() async throws {
        try await CompatFixture.with { f in
            let prefetcher = ImagePrefetcher(manager: f.manager)
            // One queue WebImageCompat keeps for every prefetcher, as for every manager.
            #expect(prefetcher.callbackQueue === ImagePrefetcher(manager: f.manager).callbackQueue)
            let queue = MarkedQueue(prefetcher.callbackQueue)
            let urls = ["/p0.png", "/p1.png", "/p2.png"].map { f.serve($0) } + [f.origin.url("/gone.png")]
            let events = Deliveries<Event>()
            let token = prefetcher.prefetchURLs(urls, progress: { finished, total in
                events.record(.progress(finished, total), onQueue: queue.isCurrent)
            }) { finished, skipped in
                events.record(.completed(finished, skipped), onQueue: queue.isCurrent)
            }
            let all = await events.wait(for: 5)
            #expect(all.map(\.value) == [.progress(1, 4), .progress(2, 4), .progress(3, 4), .progress(4, 4), .completed(4, 1)])
            #expect(all.allSatisfy { $0.onQueue })
            #expect(token.isFinished)

            // An empty list completes at once, on the queue too.
            let empty = Deliveries<Event>()
            // Labelled: a lone trailing closure would be `progress`, the first closure parameter.
            let none = prefetcher.prefetchURLs([], completed: { finished, skipped in
                empty.record(.completed(finished, skipped), onQueue: queue.isCurrent)
            })
            #expect(none.isFinished)
            let done = await empty.wait(for: 1)
            #expect(done.map(\.value) == [.completed(0, 0)])
            #expect(done.allSatisfy { $0.onQueue })
        }
    }
}
