import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCompat
import WebImageTestOrigin
import WebImageTestSupport

/// The adapter layer over WebImage's `async` seams: which queue each callback form
/// delivers on (the caches' and the loaders' shared queues, or the one a context names:
/// SDWebImage's `callbackQueue` context option), the blocking query reached through
/// ``ImageCaching/queryImageSynchronously(forKey:options:context:)`` rather than a cast
/// to ``ImageCache``, and the downloader queueing a callback request before it returns
/// when reached through ``ImageLoadersManager``.
@Suite("Callback adapters: queues, blocking queries, queueing order", .timeLimit(.minutes(1)))
struct CallbackAdapterTests {
    @Test("ImageCache and ImageCachesManager deliver on the caches' shared queue unless the query's context names one")
    func cacheQueues() async throws {
        try await CompatFixture.with { f in
            let shared = MarkedQueue(ImageCachingCallbackQueue.shared)
            let other = MarkedQueue(label: "test.cache.context")
            let chain = ImageCachesManager(caches: [f.cache])
            #expect(f.cache.callbackQueue === ImageCachingCallbackQueue.shared)
            #expect(chain.callbackQueue === ImageCachingCallbackQueue.shared)

            // ImageCache's own store form: the disk part done, then the completion on the shared queue.
            let stored = await withCheckedContinuation { c in
                f.cache.store(CompatFixture.image(), forKey: "k") { result in
                    c.resume(returning: (result.isSuccess, shared.isCurrent))
                }
            }
            #expect(stored == (true, true))
            #expect(await f.cache.diskData(forKey: "k") != nil)

            for cache: any ImageCachingCallbacks in [f.cache, chain] {
                let onShared = await withCheckedContinuation { c in
                    cache.queryImage(forKey: "k") { result in
                        c.resume(returning: ((try? result.get())?.cacheType, shared.isCurrent))
                    }
                }
                #expect(onShared == (.memory, true), "\(type(of: cache))")
                var context = WebImageContext()
                context.callbackQueue = other.queue
                let onOther = await withCheckedContinuation { c in
                    cache.queryImage(forKey: "k", context: context) { _ in c.resume(returning: other.isCurrent) }
                }
                #expect(onOther, "\(type(of: cache))")
                let contains = await withCheckedContinuation { c in
                    cache.containsImage(forKey: "k", cacheType: .all) { type in c.resume(returning: (type, shared.isCurrent)) }
                }
                #expect(contains == (.memory, true), "\(type(of: cache))")   // the first layer that has it
            }
        }
    }

    @Test("a custom cache that adopts ImageCachingCallbacks with no code gets the callback forms on the shared queue")
    func customCacheSharedQueue() async throws {
        try await CompatFixture.with { f in
            let custom = WrappedCache(f.cache, answersSynchronously: false)
            try await custom.store(CompatFixture.image(), data: nil, forKey: "k", cacheType: .memory)
            let shared = MarkedQueue(ImageCachingCallbackQueue.shared)
            #expect(custom.callbackQueue === ImageCachingCallbackQueue.shared)
            let answer = await withCheckedContinuation { c in
                custom.queryImage(forKey: "k") { result in c.resume(returning: ((try? result.get())?.cacheType, shared.isCurrent)) }
            }
            #expect(answer == (.memory, true))
            #expect(custom.queries == 1)

            // The default store and removal forms: the work done, then the completion on the shared queue.
            let stored = await withCheckedContinuation { c in
                custom.store(CompatFixture.image(), data: nil, forKey: "s", cacheType: .memory) { result in
                    c.resume(returning: (result.isSuccess, shared.isCurrent))
                }
            }
            #expect(stored == (true, true))
            #expect(await custom.containsImage(forKey: "s", cacheType: .memory) == .memory)
            let removed = await withCheckedContinuation { c in
                custom.removeImage(forKey: "s", cacheType: .all) { c.resume(returning: shared.isCurrent) }
            }
            #expect(removed)
            #expect(await custom.containsImage(forKey: "s", cacheType: .all) == .none)
        }
    }

    @Test("queryDiskDataSync: the manager blocks on any cache that answers queryImageSynchronously, and not on one that does not")
    func blockingQueryThroughTheSeam() async throws {
        try await CompatFixture.with { f in
            let url = f.origin.url("/sync.png")
            try await f.cache.store(nil, data: CompatFixture.png(), forKey: url.absoluteString, cacheType: .disk)

            // Not an ImageCache, so only the protocol requirement can reach the blocking query.
            let answering = ImageManager(cache: WrappedCache(f.cache, answersSynchronously: true), loader: f.downloader)
            let now = Deliveries<ImageCacheType>()
            answering.loadImage(with: url, options: [.queryDiskDataSync]) { now.record($0.cacheType, onQueue: true) }
            #expect(now.all.map(\.value) == [.disk])

            // The default answer, nil (a custom cache, and the chain): the hit comes on the
            // callback queue, after loadImage returned.
            let caches: [any ImageCaching] = [WrappedCache(f.cache, answersSynchronously: false), ImageCachesManager(caches: [f.cache])]
            for cache in caches {
                f.cache.clearMemory()
                let waiting = ImageManager(cache: cache, loader: f.downloader)
                let later = Deliveries<ImageCacheType>()
                let queue = MarkedQueue(label: "test.callbacks")
                var context = WebImageContext()
                context.callbackQueue = queue.queue
                // Suspended, the queue cannot run anything, so only a synchronous delivery could be seen here.
                queue.queue.suspend()
                waiting.loadImage(with: url, options: [.queryDiskDataSync], context: context) {
                    later.record($0.cacheType, onQueue: queue.isCurrent)
                }
                #expect(later.all.isEmpty, "\(type(of: cache))")
                queue.queue.resume()
                let delivered = await later.wait(for: 1)
                #expect(delivered.map(\.value) == [.disk], "\(type(of: cache))")
                #expect(delivered.allSatisfy { $0.onQueue }, "\(type(of: cache))")
            }
            #expect(f.origin.requestCount("/sync.png") == 0)
        }
    }
}

extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}

/// A custom cache that is not an ``ImageCache``: it forwards to one, counts the queries,
/// and answers the blocking query only when told to (what a custom cache with a
/// synchronous store of its own would do).
final class WrappedCache: ImageCachingCallbacks, ForwardingCache {
    let base: ImageCache
    let answersSynchronously: Bool
    private let queryCount = Mutex(0)
    init(_ base: ImageCache, answersSynchronously: Bool) {
        self.base = base
        self.answersSynchronously = answersSynchronously
    }

    var queries: Int { queryCount.withLock { $0 } }

    func queryImageSynchronously(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) -> ImageCacheQueryResult? {
        answersSynchronously ? base.queryImageSynchronously(forKey: key, options: options, context: context) : nil
    }
    func queryImage(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) async throws(WebImageError) -> ImageCacheQueryResult {
        queryCount.withLock { $0 += 1 }
        return try await base.queryImage(forKey: key, options: options, context: context)
    }
}
