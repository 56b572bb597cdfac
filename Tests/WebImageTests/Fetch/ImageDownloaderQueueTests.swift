import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin

@Suite("ImageDownloader queueing", .timeLimit(.minutes(1)))
struct ImageDownloaderQueueTests {
    /// Registers `/q0.raw` … and returns their paths.
    private func routes(_ origin: TestOrigin, count: Int) -> [String] {
        let (bytes, _) = LoaderTestKit.rawImage(width: 8, height: 8)
        return (0..<count).map { i in
            let path = "/q\(i).raw"
            origin.route(path, .init(body: bytes))
            return path
        }
    }

    @Test("LIFO with one concurrent download starts the newest first")
    func lifoOrder() async throws {
        let config = LoaderTestKit.config { $0.maxConcurrentDownloads = 1; $0.executionOrder = .lifo }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let paths = routes(origin, count: 5)
            downloader.isSuspended = true
            let recorders = paths.map { path in
                let r = LoadRecorder()
                r.request(downloader, origin.url(path))
                return r
            }
            #expect(downloader.currentDownloadCount == 5)
            try await Task.sleep(for: .milliseconds(50))
            #expect(origin.requestLog.isEmpty)
            downloader.isSuspended = false
            for r in recorders { _ = try await r.final().get() }
            #expect(origin.requestLog == Array(paths.reversed()))
        }
    }

    @Test("FIFO with one concurrent download keeps the order")
    func fifoOrder() async throws {
        let config = LoaderTestKit.config { $0.maxConcurrentDownloads = 1 }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let paths = routes(origin, count: 5)
            downloader.isSuspended = true
            let recorders = paths.map { path in
                let r = LoadRecorder()
                r.request(downloader, origin.url(path))
                return r
            }
            downloader.isSuspended = false
            for r in recorders { _ = try await r.final().get() }
            #expect(origin.requestLog == paths)
        }
    }

    @Test("a high-priority request queued last starts first; low priority goes last")
    func priorities() async throws {
        let config = LoaderTestKit.config { $0.maxConcurrentDownloads = 1 }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let paths = routes(origin, count: 5)
            downloader.isSuspended = true
            var recorders: [LoadRecorder] = []
            let options: [WebImageOptions] = [.lowPriority, [], [], [], .highPriority]
            for (path, option) in zip(paths, options) {
                let r = LoadRecorder()
                r.request(downloader, origin.url(path), options: option)
                recorders.append(r)
            }
            downloader.isSuspended = false
            for r in recorders { _ = try await r.final().get() }
            #expect(origin.requestLog == ["/q4.raw", "/q1.raw", "/q2.raw", "/q3.raw", "/q0.raw"])
        }
    }

    @Test("a high-priority caller joining a queued transfer raises it")
    func joiningRaisesPriority() async throws {
        let config = LoaderTestKit.config { $0.maxConcurrentDownloads = 1 }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let paths = routes(origin, count: 3)
            downloader.isSuspended = true
            let recorders = (paths + [paths[2]]).enumerated().map { i, path in
                let r = LoadRecorder()
                r.request(downloader, origin.url(path), options: i == 3 ? .highPriority : [])
                return r
            }
            downloader.isSuspended = false
            for r in recorders { _ = try await r.final().get() }
            #expect(origin.requestLog == ["/q2.raw", "/q0.raw", "/q1.raw"])
        }
    }

    @Test("at most maxConcurrentDownloads transfers run at once")
    func concurrencyLimit() async throws {
        let config = LoaderTestKit.config { $0.maxConcurrentDownloads = 2 }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage(width: 8, height: 8)
            for i in 0..<6 { origin.route("/c\(i).raw", .init(body: bytes, delay: .milliseconds(1500))) }
            let recorders = (0..<6).map { i in
                let r = LoadRecorder()
                r.request(downloader, origin.url("/c\(i).raw"))
                return r
            }
            // The first two are answered only after 1.5 s; until then no third may start.
            #expect(await LoaderTestKit.eventually { origin.requestLog.count >= 2 })
            try await Task.sleep(for: .milliseconds(200))
            #expect(origin.requestLog.count == 2)
            #expect(downloader.currentDownloadCount == 6)
            for r in recorders { _ = try await r.final().get() }
            #expect(origin.requestLog.count == 6)
            #expect(downloader.currentDownloadCount == 0)
        }
    }

    @Test("cancelAllDownloads cancels queued and running callers once each")
    func cancelAll() async throws {
        let config = LoaderTestKit.config { $0.maxConcurrentDownloads = 1 }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage(width: 8, height: 8)
            for i in 0..<3 { origin.route("/x\(i).raw", .init(body: bytes, delay: .seconds(2))) }
            let recorders = (0..<3).map { i in
                let r = LoadRecorder()
                r.request(downloader, origin.url("/x\(i).raw"))
                return r
            }
            #expect(await LoaderTestKit.eventually { origin.requestLog.count == 1 })
            downloader.cancelAllDownloads()
            for r in recorders { #expect(await r.finalError()?.code == .cancelled) }
            #expect(downloader.currentDownloadCount == 0)
            try await Task.sleep(for: .milliseconds(100))
            #expect(recorders.allSatisfy { $0.finalCount == 1 })
            #expect(origin.requestLog.count == 1)
        }
    }

    @Test("the queue is bounded: past maxQueuedDownloads a new transfer fails at once with cancelled, a request for a queued one still joins it, and the line takes more once it drains")
    func boundedQueue() async throws {
        let config = LoaderTestKit.config { $0.maxConcurrentDownloads = 1; $0.maxQueuedDownloads = 2 }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let paths = routes(origin, count: 5)
            downloader.isSuspended = true
            // Suspended, nothing starts: the first two wait, the third finds the line full.
            let waiting = paths.prefix(2).map { path in
                let r = LoadRecorder()
                r.request(downloader, origin.url(path))
                return r
            }
            let refused = LoadRecorder()
            refused.request(downloader, origin.url(paths[2]))
            // Answered while nothing runs (a queued request would wait here for ever); the
            // answer comes on the callback queue, so it is waited for, not read at once.
            let answered = await LoaderTestKit.eventually { refused.finalCount == 1 }
            #expect(answered)
            guard answered else {
                downloader.isSuspended = false
                return
            }
            let error = await refused.finalError()
            #expect(error?.code == .cancelled)
            #expect(error?.message.contains("queue is full") == true)
            #expect(downloader.currentDownloadCount == 2)
            // A second request for a transfer that waits joins it: no new transfer.
            let joined = LoadRecorder()
            joined.request(downloader, origin.url(paths[0]))
            downloader.isSuspended = false
            for r in waiting + [joined] { _ = try await r.final().get() }
            #expect(origin.requestLog == Array(paths.prefix(2)))
            // Drained: the refused URL is not blocked and loads now.
            let later = LoadRecorder()
            later.request(downloader, origin.url(paths[2]))
            _ = try await later.final().get()
            #expect(origin.requestLog == Array(paths.prefix(3)))
        }
    }

    @Test("maxQueuedDownloads is 100,000 unless set, and at least 1")
    func queuedLimitDefault() {
        var config = DownloaderConfig()
        #expect(config.maxQueuedDownloads == 100_000)
        config.maxQueuedDownloads = 0
        #expect(config.maxQueuedDownloads == 1)
        config.maxQueuedDownloads = -5
        #expect(config.maxQueuedDownloads == 1)
    }

    @Test("shutdown cancels what runs, then new requests fail with invalidDownloadOperation")
    func shutdownIsClean() async throws {
        try await TestOrigin.with { origin in
            let (bytes, _) = LoaderTestKit.rawImage(width: 8, height: 8)
            origin.route("/s.raw", .init(body: bytes, delay: .seconds(2)))
            let downloader = ImageDownloader(config: LoaderTestKit.config())
            let running = LoadRecorder()
            running.request(downloader, origin.url("/s.raw"))
            #expect(await LoaderTestKit.eventually { origin.requestCount("/s.raw") == 1 })
            await downloader.shutdown()
            #expect(await running.finalError()?.code == .cancelled)
            #expect(downloader.currentDownloadCount == 0)

            let late = LoadRecorder()
            late.request(downloader, origin.url("/s.raw"))
            #expect(await late.finalError()?.code == .invalidDownloadOperation)
            await downloader.shutdown()
        }
    }
}
