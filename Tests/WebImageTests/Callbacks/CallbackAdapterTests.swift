import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// The adapter layer over the `async` seams (`Sources/WebImage/Callbacks`): which queue
/// each callback form delivers on, the blocking query reached through
/// ``ImageCaching/queryImageSynchronously(forKey:options:context:)`` rather than a cast to
/// ``ImageCache``, and the downloader queueing a callback request before it returns when
/// reached through ``ImageLoadersManager``.
@Suite("Callback adapters: queues, blocking queries, queueing order", .timeLimit(.minutes(1)))
struct CallbackAdapterTests {
    /// A queue that knows itself: `isCurrent` is true only on it.
    final class MarkedQueue: Sendable {
        let queue: DispatchQueue
        private let key = DispatchSpecificKey<Int>()
        init(_ queue: DispatchQueue) {
            self.queue = queue
            queue.setSpecific(key: key, value: 1)
        }
        var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == 1 }
    }

    @Test("a cache's callback forms deliver on its configured queue unless the query's context names one")
    func cacheConfiguredQueue() async throws {
        let dir = try TemporaryDirectory()
        let own = MarkedQueue(DispatchQueue(label: "test.cache.own"))
        let other = MarkedQueue(DispatchQueue(label: "test.cache.context"))
        let cache = ImageCacheStoreTests.makeCache(dir) { $0.callbackQueue = own.queue }
        #expect(cache.callbackQueue === own.queue)
        try await cache.store(RawRGBACoder.image(), forKey: "k")

        let onOwn = await withCheckedContinuation { c in cache.queryImage(forKey: "k") { _ in c.resume(returning: own.isCurrent) } }
        #expect(onOwn)
        let onOther = await withCheckedContinuation { c in
            cache.queryImage(forKey: "k", context: WebImageContext.with { $0.callbackQueue = other.queue }) { _ in
                c.resume(returning: other.isCurrent)
            }
        }
        #expect(onOther)
        let containsOnOwn = await withCheckedContinuation { c in
            cache.containsImage(forKey: "k", cacheType: .all) { _ in c.resume(returning: own.isCurrent) }
        }
        #expect(containsOnOwn)
    }

    @Test("a custom cache that adopts ImageCachingCallbacks with no code gets the callback forms on the shared queue")
    func customCacheSharedQueue() async throws {
        let dir = try TemporaryDirectory()
        let custom = CountingCache(ImageCacheStoreTests.makeCache(dir))
        try await custom.store(RawRGBACoder.image(), data: nil, forKey: "k", cacheType: .memory)
        let shared = MarkedQueue(ImageCachingCallbackQueue.shared)
        #expect(custom.callbackQueue === ImageCachingCallbackQueue.shared)
        let (hit, onShared) = await withCheckedContinuation { c in
            custom.queryImage(forKey: "k") { result in c.resume(returning: ((try? result.get())?.cacheType, shared.isCurrent)) }
        }
        #expect(hit == .memory)
        #expect(onShared)
        #expect(custom.queries == 1)
    }

    @Test("queryDiskDataSync: the manager blocks on any cache that answers queryImageSynchronously, and not on one that does not")
    func blockingQueryThroughTheSeam() async throws {
        try await ManagerFixture.with { f in
            let png = ManagerTestKit.png()
            let url = f.origin.url("/sync.png")
            try await f.cache.store(nil, data: png, forKey: url.absoluteString, cacheType: .disk)

            // Not an ImageCache, so only the protocol requirement can reach the blocking query.
            let answering = ImageManager(cache: SynchronousCache(f.cache), loader: f.downloader)
            let recorder = ResultRecorder()
            answering.loadImage(with: url, options: [.queryDiskDataSync], completed: recorder.record)
            #expect(recorder.all.map(\.cacheType) == [.disk])

            // The default answer, nil (a custom cache, and the chain): the hit comes on the
            // callback queue, after loadImage returned.
            for cache: any ImageCaching in [CountingCache(f.cache), ImageCachesManager(caches: [f.cache])] {
                f.cache.clearMemory()
                let waiting = ImageManager(cache: cache, loader: f.downloader)
                let later = ResultRecorder()
                var context = WebImageContext()
                context.callbackQueue = DispatchQueue(label: "test.callbacks")
                // Suspended, the queue cannot run anything, so only a synchronous delivery could be seen here.
                context.callbackQueue?.suspend()
                waiting.loadImage(with: url, options: [.queryDiskDataSync], context: context, completed: later.record)
                #expect(later.all.isEmpty, "\(type(of: cache))")
                context.callbackQueue?.resume()
                #expect(await later.wait(for: 1).map(\.cacheType) == [.disk], "\(type(of: cache))")
            }
            #expect(f.origin.requestCount("/sync.png") == 0)
        }
    }

    @Test("through ImageLoadersManager the downloader queues each callback request before requestImage returns")
    func queuedThroughLoadersManager() async throws {
        let config = LoaderTestKit.config { $0.maxConcurrentDownloads = 1; $0.executionOrder = .lifo }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage(width: 8, height: 8)
            let paths = (0..<4).map { "/m\($0).raw" }
            for path in paths { origin.route(path, .init(body: bytes)) }
            let loaders = ImageLoadersManager(loaders: [downloader])
            downloader.isSuspended = true
            let recorders = paths.map { path in
                let r = LoadRecorder()
                r.request(loaders, origin.url(path))
                return r
            }
            #expect(downloader.currentDownloadCount == 4)
            downloader.isSuspended = false
            for r in recorders { _ = try await r.final().get() }
            #expect(origin.requestLog == Array(paths.reversed()))
        }
    }
}

extension CountingCache: ImageCachingCallbacks {}

/// A cache that is not an ``ImageCache`` but answers the blocking query (through the one
/// it wraps): what a custom cache with a synchronous store of its own would do.
final class SynchronousCache: ForwardingCache {
    let base: ImageCache
    init(_ base: ImageCache) { self.base = base }

    func queryImageSynchronously(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) -> ImageCacheQueryResult? {
        base.queryImageSynchronously(forKey: key, options: options, context: context)
    }
    func queryImage(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) async throws(WebImageError) -> ImageCacheQueryResult {
        try await base.queryImage(forKey: key, options: options, context: context)
    }
}
