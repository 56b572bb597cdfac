import Dispatch
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCompat
import WebImageTestOrigin

/// The loaders' and the manager's callback forms: every callback on the queue SDWebImage's
/// `callbackQueue` context option names, else on the form's default (the loaders' shared
/// queue; the manager's ``WebImage/ImageManager/callbackQueue``), never on the calling thread.
@Suite("Loader and manager callback forms: where they deliver", .timeLimit(.minutes(1)))
struct LoaderCallbackTests {
    enum Event: Equatable, Sendable { case progress, partial, final(Bool) }

    /// Starts a callback request and records each callback and whether it ran on `queue`.
    static func request(
        _ loader: any ImageLoaderCallbacks, _ url: URL?, context: WebImageContext = WebImageContext(), on queue: MarkedQueue
    ) -> Deliveries<Event> {
        let events = Deliveries<Event>()
        loader.requestImage(with: url, options: [], context: context, progress: { _, _ in
            events.record(.progress, onQueue: queue.isCurrent)
        }) { result in
            switch result {
            case .success(let response) where !response.isFinished: events.record(.partial, onQueue: queue.isCurrent)
            case .success(let response): events.record(.final(response.image != nil), onQueue: queue.isCurrent)
            case .failure: events.record(.final(false), onQueue: queue.isCurrent)
            }
        }
        return events
    }

    /// Waits for the final callback and returns every event (what came, if it never does).
    static func finished(_ events: Deliveries<Event>) async -> [(value: Event, onQueue: Bool)] {
        var n = 1
        while true {
            let all = await events.wait(for: n)
            if all.count < n || all.contains(where: { if case .final = $0.value { true } else { false } }) { return all }
            n = all.count + 1
        }
    }

    @Test("the downloader and the loaders manager deliver on the loaders' shared queue unless the context names one")
    func loaderQueues() async throws {
        try await CompatFixture.with { f in
            let url = f.serve("/a.png")
            let shared = MarkedQueue(LoaderCallbacks.sharedQueue)
            let other = MarkedQueue(label: "test.loader.context")
            var context = WebImageContext()
            context.callbackQueue = other.queue
            let loaders = ImageLoadersManager(loaders: [f.downloader])
            for loader: any ImageLoaderCallbacks in [f.downloader, loaders] {
                #expect(loader.callbackQueue === LoaderCallbacks.sharedQueue)
                let byDefault = await Self.finished(Self.request(loader, url, on: shared))
                #expect(byDefault.last?.value == .final(true), "\(type(of: loader))")
                #expect(byDefault.allSatisfy { $0.onQueue }, "\(type(of: loader)): \(byDefault)")
                let named = await Self.finished(Self.request(loader, url, context: context, on: other))
                #expect(named.last?.value == .final(true), "\(type(of: loader))")
                #expect(named.allSatisfy { $0.onQueue }, "\(type(of: loader)): \(named)")
                // A refused request fails on the queue too, never on the calling thread.
                let refused = await Self.finished(Self.request(loader, nil, context: context, on: other))
                #expect(refused.map(\.value) == [.final(false)], "\(type(of: loader))")
                #expect(refused.allSatisfy { $0.onQueue }, "\(type(of: loader))")
            }
        }
    }

    @Test("through ImageLoadersManager the downloader queues each callback request before requestImage returns")
    func queuedThroughLoadersManager() async throws {
        try await CompatFixture.with(downloader: { $0.maxConcurrentDownloads = 1; $0.executionOrder = .lifo }) { f in
            let paths = (0..<4).map { "/m\($0).png" }
            let urls = paths.map { f.serve($0) }
            let loaders = ImageLoadersManager(loaders: [f.downloader])
            f.downloader.isSuspended = true
            let queue = MarkedQueue(LoaderCallbacks.sharedQueue)
            let requests = urls.map { Self.request(loaders, $0, on: queue) }
            #expect(f.downloader.currentDownloadCount == 4)
            f.downloader.isSuspended = false
            for events in requests { #expect(await Self.finished(events).last?.value == .final(true)) }
            #expect(f.origin.requestLog == Array(paths.reversed()))
        }
    }

    @Test("ImageManager's callback form delivers on WebImageCompat's one queue for every manager unless the context names one")
    func managerQueue() async throws {
        try await CompatFixture.with { f in
            let url = f.serve("/b.png")
            #expect(f.manager.callbackQueue === ImageManager(cache: f.cache, loader: f.downloader).callbackQueue, "one queue for every manager")
            let own = MarkedQueue(f.manager.callbackQueue)
            let first = Deliveries<ImageCacheType>()
            f.manager.loadImage(with: url) { first.record($0.cacheType, onQueue: own.isCurrent) }
            let byDefault = await first.wait(for: 1)
            #expect(byDefault.map(\.value) == [.none])
            #expect(byDefault.allSatisfy { $0.onQueue })

            let other = MarkedQueue(label: "test.manager.context")
            var context = WebImageContext()
            context.callbackQueue = other.queue
            let second = Deliveries<ImageCacheType>()
            f.manager.loadImage(with: url, context: context) { second.record($0.cacheType, onQueue: other.isCurrent) }
            let named = await second.wait(for: 1)
            #expect(named.map(\.value) == [.memory])
            #expect(named.allSatisfy { $0.onQueue })
        }
    }
}
