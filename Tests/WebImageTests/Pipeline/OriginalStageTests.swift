import Foundation
import Testing
@testable import WebImage
import WebImageTestOrigin

/// Stage A, originals, over a real downloader and a loopback origin: what a fetch gives
/// (``FetchOutcome``: 304 and an empty body are outcomes, not errors), one fetch per key,
/// revalidation in the stage, no-store.
@Suite("OriginalStage: fetch outcomes, one fetch per key, revalidation", .timeLimit(.minutes(1)))
struct OriginalStageTests {
    static let bytes = Array("not really a PNG, but bytes".utf8)

    /// A stage over `cache`, with the library's errors.
    static func stage(_ cache: (any PipelineStageCache<OriginalData>)? = nil) -> OriginalStage<WebImageError> {
        OriginalStage(cache: cache, failure: { $0 }, waitFailure: { _ in .cancelled() })
    }

    /// Runs `body` with an origin and a downloader, and awaits both shutdowns.
    static func withOrigin(
        config: DownloaderConfig = .default, _ body: (TestOrigin, ImageDownloader) async throws -> Void
    ) async throws {
        try await TestOrigin.with { origin in
            try await ImageDownloader.withDownloader(config: config) { try await body(origin, $0) }
        }
    }

    @Test("the downloader's fetch: a 304, an empty body and a status it lets through are outcomes with their headers")
    func downloaderOutcomes() async throws {
        var config = DownloaderConfig.default
        config.acceptableStatusCodes = Set(200..<300).union([429])
        try await Self.withOrigin(config: config) { origin, downloader in
            origin.route("/304", .init(status: 304, headers: [("Cache-Control", "max-age=60")]))
            origin.route("/empty", .init(status: 200, contentType: "image/png", headers: [("ETag", "\"e\"")]))
            origin.route("/429", .init(status: 429, body: Array("slow down".utf8), headers: [("Retry-After", "7")]))
            origin.route("/404", .status(404))

            guard case .notModified(let notModified) = try await downloader.fetch(origin.url("/304"), validators: nil) else {
                Issue.record("a 304 is .notModified")
                return
            }
            // Its headers come along: the manager renews a stored copy's freshness from them.
            #expect(notModified?.statusCode == 304)
            #expect(notModified?.headers["Cache-Control"] == "max-age=60")
            guard case .body(let empty, let http) = try await downloader.fetch(origin.url("/empty"), validators: nil) else {
                Issue.record("an empty 200 is an empty body")
                return
            }
            #expect(empty.data.isEmpty)
            #expect(empty.etag == "\"e\"")
            #expect(http?.statusCode == 200)
            guard case .status(let refused) = try await downloader.fetch(origin.url("/429"), validators: nil) else {
                Issue.record("a 429 the config lets through is .status")
                return
            }
            #expect(refused.statusCode == 429)
            #expect(refused.headers["Retry-After"] == "7")
            // A status the config does not let through stays the downloader's error.
            await #expect(throws: WebImageError.self) { try await downloader.fetch(origin.url("/404"), validators: nil) }
        }
    }

    @Test("a status acceptableStatusCodes lets through counts as success for a manager, as DownloaderConfig says: its body is the image")
    func acceptedStatusIsSuccess() async throws {
        var config = DownloaderConfig.default
        config.acceptableStatusCodes = Set(200..<300).union([404])
        try await Self.withOrigin(config: config) { origin, downloader in
            // A site that answers a missing image with a placeholder picture and 404.
            let png = ManagerTestKit.png(width: 6, height: 4)
            origin.route("/placeholder", .init(status: 404, body: Array(png), contentType: "image/png"))
            let directory = try TemporaryDirectory()
            let manager = ImageManager(cache: ImageCache(namespace: "status", directory: directory.url), loader: downloader)
            let loaded = try await manager.loadImage(with: origin.url("/placeholder"))
            #expect(loaded.image.width == 6 && loaded.image.height == 4)
            // The fetcher's own form still hands the status to its caller to judge.
            guard case .status(let http) = try await downloader.fetch(origin.url("/placeholder"), validators: nil) else {
                Issue.record("a 404 through ImageFetching is .status")
                return
            }
            #expect(http.statusCode == 404)
        }
        // Without it, the 404 fails the load.
        try await Self.withOrigin { origin, downloader in
            origin.route("/placeholder", .init(status: 404, body: Array(ManagerTestKit.png()), contentType: "image/png"))
            let directory = try TemporaryDirectory()
            let manager = ImageManager(cache: ImageCache(namespace: "status", directory: directory.url), loader: downloader)
            await #expect { try await manager.loadImage(with: origin.url("/placeholder")) } throws: { error in
                (error as? WebImageError)?.code == .invalidDownloadStatusCode && (error as? WebImageError)?.httpStatusCode == 404
            }
        }
    }

    @Test("a fetch caller's BodyLease keeps the finished body for later callers until it is released")
    func bodyLease() async throws {
        try await Self.withOrigin { origin, downloader in
            origin.route("/held", .init(body: Self.bytes, contentType: "image/png"))
            let url = origin.url("/held")
            let lease = BodyLease()
            var observer = ImageLoadObserver()
            observer.bodyLease = lease
            _ = try await downloader.fetch(url, options: [], context: WebImageContext(), observer: observer)
            // While it is held (stage B decoding it), a fetch of the same request gets it without a request.
            guard case .body(let again, _) = try await downloader.fetch(url, validators: nil) else {
                Issue.record("the held body is a body")
                return
            }
            #expect(again.data == Data(Self.bytes))
            #expect(origin.requestCount("/held") == 1)
            #expect(downloader.currentDownloadCount == 1)
            lease.release()
            lease.release()
            #expect(downloader.currentDownloadCount == 0)
            _ = try await downloader.fetch(url, validators: nil)
            #expect(origin.requestCount("/held") == 2)
        }
    }

    @Test("the stage turns a 304 with nothing stored, an empty body and a status into its error")
    func stageErrors() async throws {
        var config = DownloaderConfig.default
        config.acceptableStatusCodes = Set(200..<300).union([429])
        try await Self.withOrigin(config: config) { origin, downloader in
            origin.route("/304", .init(status: 304, headers: [("Cache-Control", "max-age=60")]))
            origin.route("/empty", .init(status: 200, contentType: "image/png"))
            origin.route("/429", .init(status: 429, body: Array("slow down".utf8)))
            let stage = Self.stage()
            func failure(_ path: String) async -> WebImageError? {
                do {
                    _ = try await stage.original(for: origin.url(path), from: downloader)
                    return nil
                } catch {
                    return error
                }
            }
            let notModified = await failure("/304")
            #expect(notModified?.code == .invalidDownloadStatusCode)
            #expect(notModified?.httpStatusCode == 304)
            #expect(await failure("/empty")?.code == .badImageData)
            let status = await failure("/429")
            #expect(status?.code == .invalidDownloadStatusCode)
            #expect(status?.httpStatusCode == 429)
        }
    }

    @Test("callers at the same time share one fetch; with no cache, a later caller fetches again")
    func oneFetchPerKey() async throws {
        try await Self.withOrigin { origin, downloader in
            origin.route("/slow", .init(body: Self.bytes, contentType: "image/png", delay: .milliseconds(300)))
            let stage = Self.stage()
            let url = origin.url("/slow")
            let results = await withTaskGroup(of: Data?.self) { group in
                for _ in 0..<8 { group.addTask { try? await stage.original(for: url, from: downloader).data } }
                return await group.reduce(into: [Data?]()) { $0.append($1) }
            }
            #expect(results.count == 8)
            #expect(results.allSatisfy { $0 == Data(Self.bytes) })
            #expect(origin.requestCount("/slow") == 1)
            #expect(stage.startedCount == 1)
            _ = try await stage.original(for: url, from: downloader)
            #expect(origin.requestCount("/slow") == 2)
        }
    }

    @Test("revalidation: the stored copy's ETag goes out as If-None-Match; a 304 answers the stored copy, a change the new bytes")
    func revalidation() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("originals-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = TieredCache<OriginalData>(disk: DiskCache(directory: root), memoryBytes: 1 << 20)
        let stage = Self.stage(cache)
        try await Self.withOrigin { origin, downloader in
            var first = TestOrigin.Response(body: Self.bytes, contentType: "image/png")
            first.etag = "\"v1\""
            origin.route("/a", first)
            let url = origin.url("/a")

            let fetched = try await stage.original(for: url, from: downloader, revalidating: true)
            #expect(fetched.data == Data(Self.bytes))
            #expect(fetched.etag == "\"v1\"")
            #expect(origin.requestHeaders("/a").first?["if-none-match"] == nil)
            // Not revalidating: the stored copy, no request.
            _ = try await stage.original(for: url, from: downloader)
            #expect(origin.requestCount("/a") == 1)

            let same = try await stage.original(for: url, from: downloader, revalidating: true)
            #expect(same.data == Data(Self.bytes))
            #expect(origin.requestHeaders("/a").last?["if-none-match"] == "\"v1\"")
            #expect(stage.notModifiedCount == 1)

            var second = TestOrigin.Response(body: Array("changed".utf8), contentType: "image/png")
            second.etag = "\"v2\""
            origin.route("/a", second)
            let changed = try await stage.original(for: url, from: downloader, revalidating: true)
            #expect(changed.data == Data("changed".utf8))
            #expect(cache.memoryValue(forKey: url.absoluteString)?.etag == "\"v2\"")
            #expect(stage.notModifiedCount == 1)
            #expect(origin.requestCount("/a") == 3)
        }
        await cache.flush()
    }

    @Test("a source that says no-store is given to its caller and not kept")
    func noStore() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("originals-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = TieredCache<OriginalData>(disk: DiskCache(directory: root), memoryBytes: 1 << 20)
        let stage = Self.stage(cache)
        try await Self.withOrigin { origin, downloader in
            origin.route("/private", .init(body: Self.bytes, contentType: "image/png", headers: [("Cache-Control", "private, no-store")]))
            let url = origin.url("/private")
            #expect(try await stage.original(for: url, from: downloader).data == Data(Self.bytes))
            #expect(cache.memoryValue(forKey: url.absoluteString) == nil)
            _ = try await stage.original(for: url, from: downloader)
            #expect(origin.requestCount("/private") == 2)
        }
        await cache.flush()
    }

    @Test("the disk form: an entry in the proxy's WISRC1 form reads back; anything else is a miss")
    func diskForm() {
        // Written by hand in the form the proxy's source cache has always used.
        let entry = Data("WISRC1\n{\"etag\":\"\\\"x\\\"\",\"cacheControl\":\"max-age=60\"}\nBYTES".utf8)
        let read = OriginalData(serialized: entry)
        #expect(read?.data == Data("BYTES".utf8))
        #expect(read?.etag == "\"x\"")
        #expect(read?.cacheControl == "max-age=60")
        #expect(read?.lastModified == nil)
        let original = OriginalData(data: Data([0, 10, 255]), etag: "\"e\"", lastModified: "Sat, 28 Nov 2026 10:00:00 GMT")
        let back = OriginalData(serialized: original.serialized)
        #expect(back?.data == original.data && back?.etag == original.etag && back?.lastModified == original.lastModified)
        #expect(OriginalData(serialized: Data("WISRC2\n{}\nBYTES".utf8)) == nil)
        #expect(OriginalData(serialized: Data("WISRC1\nnot json\nBYTES".utf8)) == nil)
    }
}
