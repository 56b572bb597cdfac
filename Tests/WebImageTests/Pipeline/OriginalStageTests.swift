import CXattr
import Foundation
import Testing
@testable import WebImage
import WebImageCompat
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

    @Test("the downloader's fetch: a 304, an empty body and a status (let through by the config or not) are outcomes with their headers")
    func downloaderOutcomes() async throws {
        var config = DownloaderConfig.default
        config.acceptableStatusCodes = Set(200..<300).union([429])
        try await Self.withOrigin(config: config) { origin, downloader in
            origin.route("/304", .init(status: 304, headers: [("Cache-Control", "max-age=60")]))
            origin.route("/empty", .init(status: 200, contentType: "image/png", headers: [("ETag", "\"e\"")]))
            origin.route("/429", .init(status: 429, body: Array("slow down".utf8), headers: [("Retry-After", "7")]))
            origin.route("/404", .init(status: 404, headers: [("X-Reason", "gone")]))

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
            // A status the config does not let through is an answer too (ImageFetching), with
            // its headers: the stage judges it (a 4xx never answers a stale copy).
            guard case .status(let missing) = try await downloader.fetch(origin.url("/404"), validators: nil) else {
                Issue.record("a 404 is .status")
                return
            }
            #expect(missing.statusCode == 404 && missing.headers["X-Reason"] == "gone")
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

            let fetched = try await stage.original(for: url, from: downloader, revalidating: .always)
            #expect(fetched.data == Data(Self.bytes))
            #expect(fetched.etag == "\"v1\"")
            #expect(origin.requestHeaders("/a").first?["if-none-match"] == nil)
            // Not revalidating: the stored copy, no request.
            _ = try await stage.original(for: url, from: downloader)
            #expect(origin.requestCount("/a") == 1)

            await cache.flush()
            let file = cache.disk.cachePath(forKey: url.absoluteString)
            var before = stat()
            #expect(stat(file, &before) == 0)
            let same = try await stage.original(for: url, from: downloader, revalidating: .always)
            #expect(same.data == Data(Self.bytes))
            #expect(origin.requestHeaders("/a").last?["if-none-match"] == "\"v1\"")
            #expect(stage.notModifiedCount == 1)
            // The 304 changed no metadata (no caching headers either time): nothing is
            // written, not even the attribute, which would change the file's ctime.
            await cache.flush()
            var after = stat()
            #expect(stat(file, &after) == 0)
            #expect(after.st_ctim.tv_sec == before.st_ctim.tv_sec && after.st_ctim.tv_nsec == before.st_ctim.tv_nsec)

            var second = TestOrigin.Response(body: Array("changed".utf8), contentType: "image/png")
            second.etag = "\"v2\""
            origin.route("/a", second)
            let changed = try await stage.original(for: url, from: downloader, revalidating: .always)
            #expect(changed.data == Data("changed".utf8))
            #expect(cache.memoryValue(forKey: url.absoluteString)?.etag == "\"v2\"")
            #expect(stage.notModifiedCount == 1)
            #expect(origin.requestCount("/a") == 3)
        }
        await cache.flush()
    }

    @Test("revalidating whenStale: a fresh copy or one with no caching header is answered as is; a stale one is checked first, from memory and from disk")
    func whenStale() async throws {
        let directory = try TemporaryDirectory()
        let disk = DiskCache(directory: directory.url)
        let cache = TieredCache<OriginalData>(disk: disk, memoryBytes: 1 << 20)
        let stage = Self.stage(cache)
        try await Self.withOrigin { origin, downloader in
            func route(_ path: String, _ headers: [(String, String)]) -> URL {
                var response = TestOrigin.Response(body: Self.bytes, contentType: "image/png", headers: headers)
                response.etag = "\"\(path)\""
                origin.route(path, response)
                return origin.url(path)
            }
            let fresh = route("/fresh", [("Cache-Control", "max-age=3600")])
            let plain = route("/plain", [])
            let stale = route("/stale", [("Cache-Control", "max-age=0")])
            let noCache = route("/no-cache", [("Cache-Control", "no-cache, max-age=3600")])
            for url in [fresh, plain, stale, noCache] {
                _ = try await stage.original(for: url, from: downloader, revalidating: .whenStale)
                _ = try await stage.original(for: url, from: downloader, revalidating: .whenStale)
            }
            #expect(origin.requestCount("/fresh") == 1 && origin.requestCount("/plain") == 1)
            #expect(origin.requestCount("/stale") == 2 && origin.requestCount("/no-cache") == 2)
            #expect(origin.requestHeaders("/stale").last?["if-none-match"] == "\"/stale\"")
            #expect(origin.requestHeaders("/no-cache").last?["if-none-match"] == "\"/no-cache\"")
            #expect(stage.notModifiedCount == 2)
            // From disk, in a stage with an empty memory tier: the same rule.
            await cache.flush()
            let second = Self.stage(TieredCache<OriginalData>(disk: disk, memoryBytes: 1 << 20))
            for url in [fresh, plain, stale, noCache] { _ = try await second.original(for: url, from: downloader, revalidating: .whenStale) }
            #expect(origin.requestCount("/fresh") == 1 && origin.requestCount("/plain") == 1)
            #expect(origin.requestCount("/stale") == 3 && origin.requestCount("/no-cache") == 3)
        }
        await cache.flush()
    }

    @Test("stale-if-error: a failed check (a 5xx, a refused connection) answers the stale copy within it; a 4xx, or no stale-if-error, is the error")
    func staleIfError() async throws {
        let directory = try TemporaryDirectory()
        let cache = TieredCache<OriginalData>(disk: DiskCache(directory: directory.url), memoryBytes: 1 << 20)
        let stage = Self.stage(cache)
        var sieURL: URL?
        try await Self.withOrigin { origin, downloader in
            sieURL = origin.url("/sie")
            origin.route("/sie", .init(body: Self.bytes, contentType: "image/png", headers: [("Cache-Control", "max-age=0, stale-if-error=600")]))
            origin.route("/strict", .init(body: Self.bytes, contentType: "image/png", headers: [("Cache-Control", "max-age=0")]))
            origin.route("/gone", .init(body: Self.bytes, contentType: "image/png", headers: [("Cache-Control", "max-age=0, stale-if-error=600")]))
            for path in ["/sie", "/strict", "/gone"] {
                _ = try await stage.original(for: origin.url(path), from: downloader, revalidating: .whenStale)
            }
            origin.route("/sie", .status(503))
            origin.route("/strict", .status(503))
            origin.route("/gone", .status(404))
            let served = try await stage.original(for: origin.url("/sie"), from: downloader, revalidating: .whenStale)
            #expect(served.data == Data(Self.bytes))
            await #expect(throws: WebImageError.self) {
                try await stage.original(for: origin.url("/strict"), from: downloader, revalidating: .whenStale)
            }
            do {
                _ = try await stage.original(for: origin.url("/gone"), from: downloader, revalidating: .whenStale)
                Issue.record("a 404 answered the stale copy")
            } catch {
                #expect((error as? WebImageError)?.httpStatusCode == 404)
            }
            #expect(origin.requestCount("/sie") == 2 && origin.requestCount("/strict") == 2 && origin.requestCount("/gone") == 2)
        }
        // The origin is gone: a refused connection within stale-if-error still answers the copy.
        try await ImageDownloader.withDownloader { downloader in
            let served = try await stage.original(for: try #require(sieURL), from: downloader, revalidating: .whenStale)
            #expect(served.data == Data(Self.bytes))
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

    /// The entry file's `user.webimage.extended` attribute as JSON, read with the system
    /// call, as `getfattr` would; `nil` when it has none.
    static func attribute(of file: String) -> [String: Any]? {
        let size = getxattr(file, "user.webimage.extended", nil, 0)
        guard size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard getxattr(file, "user.webimage.extended", &bytes, size) == size else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    /// The entry's extended data as JSON: its attribute, else (a file system that keeps no
    /// user attributes) its sidecar, `.<name>.extended` beside it.
    static func metadata(of file: String) -> [String: Any]? {
        if let attribute = attribute(of: file) { return attribute }
        let url = URL(fileURLWithPath: file)
        let sidecar = url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".extended")
        return (try? Data(contentsOf: sidecar)).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]
    }

    @Test("the disk form: the entry file is the image's bytes, and the response's metadata is its extended attribute, as JSON")
    func diskForm() async throws {
        let directory = try TemporaryDirectory()
        let disk = DiskCache(directory: directory.url)
        let cache = TieredCache<OriginalData>(disk: disk, memoryBytes: 1 << 20)
        try await Self.withOrigin { origin, downloader in
            origin.route("/a", .init(body: Self.bytes, contentType: "image/png", headers: [
                ("ETag", "\"v1\""), ("Last-Modified", "Sat, 28 Nov 2026 10:00:00 GMT"),
                ("Cache-Control", "public, max-age=60"), ("Expires", "Sat, 28 Nov 2026 11:00:00 GMT"),
            ]))
            let url = origin.url("/a")
            _ = try await Self.stage(cache).original(for: url, from: downloader)
            await cache.flush()
            let file = disk.cachePath(forKey: url.absoluteString)
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(Self.bytes))
            let stored = try #require(Self.metadata(of: file))
            #expect(stored["etag"] as? String == "\"v1\"")
            #expect(stored["lastModified"] as? String == "Sat, 28 Nov 2026 10:00:00 GMT")
            #expect(stored["cacheControl"] as? String == "public, max-age=60")
            #expect(stored["expires"] as? String == "Sat, 28 Nov 2026 11:00:00 GMT")

            // A second cache on the same disk reads it all back, with no fetch.
            let read = try #require(await TieredCache<OriginalData>(disk: disk, memoryBytes: 1 << 20).storedValue(forKey: url.absoluteString))
            #expect(read.data == Data(Self.bytes) && read.etag == "\"v1\"" && read.expires == "Sat, 28 Nov 2026 11:00:00 GMT")
            #expect(read.cacheControl == "public, max-age=60")
            #expect(origin.requestCount("/a") == 1)
        }
    }

    @Test("one format with the library: an original the manager cached is the stage's hit, and the stage's entry gives the manager its validators")
    func sharedWithLibrary() async throws {
        let png = Array(ManagerTestKit.png(width: 6, height: 4))
        try await Self.withOrigin { origin, downloader in
            origin.route("/lib", .init(body: png, contentType: "image/png", headers: [("ETag", "\"lib\""), ("Cache-Control", "max-age=600")]))
            origin.route("/stage", .init(body: png, contentType: "image/png", headers: [("ETag", "\"stage\"")]))
            let directory = try TemporaryDirectory()
            let imageCache = ImageCache(namespace: "shared", directory: directory.url)
            let manager = ImageManager(cache: imageCache, loader: downloader)
            let originals = TieredCache<OriginalData>(disk: imageCache.diskCache, memoryBytes: 1 << 20)

            // The library writes; the stage reads the entry with its ETag and freshness, and fetches nothing.
            var options = WebImageOptions()
            options.insert(.waitStoreCache)
            _ = try await manager.loadImage(with: origin.url("/lib"), options: options)
            // The library's entry, read as another tool would: the PNG itself, the JSON beside it.
            let file = imageCache.cachePath(forKey: origin.url("/lib").absoluteString)
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(png))
            let written = try #require(Self.metadata(of: file))
            #expect(written["etag"] as? String == "\"lib\"" && written["lifetime"] as? Double == 600)
            let hit = try await Self.stage(originals).original(for: origin.url("/lib"), from: downloader)
            #expect(hit.data == Data(png) && hit.etag == "\"lib\"" && hit.freshness?.lifetime == 600)
            #expect(origin.requestCount("/lib") == 1)

            // The stage writes; the library's refresh revalidates with the stage's ETag.
            _ = try await Self.stage(originals).original(for: origin.url("/stage"), from: downloader)
            await originals.flush()
            // The stream runs to the load's end: the cached image, then the check.
            for try await _ in manager.loadImageStream(with: origin.url("/stage"), options: [.refreshCached]) {}
            let sent = origin.requestHeaders("/stage")
            #expect(sent.count == 2)
            #expect(sent.last?["if-none-match"] == "\"stage\"")
        }
    }

    @Test("freshness in one form with the library: the stage keeps a copy's freshness, a 304 renews it in the attribute without rewriting the bytes, and the library's respectHeaders reads it")
    func renewalSharedWithLibrary() async throws {
        let png = Array(ManagerTestKit.png(width: 6, height: 4))
        try await Self.withOrigin { origin, downloader in
            origin.route("/a", .init(body: png, contentType: "image/png", headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=0")]))
            let url = origin.url("/a")
            let directory = try TemporaryDirectory()
            let imageCache = ImageCache(namespace: "renew", directory: directory.url)
            let originals = TieredCache<OriginalData>(disk: imageCache.diskCache, memoryBytes: 1 << 20)
            let stage = Self.stage(originals)
            let file = imageCache.cachePath(forKey: url.absoluteString)

            let before = Date()
            _ = try await stage.original(for: url, from: downloader)
            await originals.flush()
            let kept = try #require(Self.metadata(of: file))
            #expect(kept["lifetime"] as? Double == 0 && kept["cacheControl"] as? String == "max-age=0")
            let keptAt = try #require(kept["receivedAt"] as? Double)
            #expect(keptAt >= before.timeIntervalSince1970.rounded(.down))
            var stat1 = stat()
            #expect(stat(file, &stat1) == 0)

            // The source answers the check 304, now with a longer lifetime.
            origin.route("/a", .init(status: 304, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=600")]))
            let renewed = try await stage.original(for: url, from: downloader, revalidating: .always)
            #expect(origin.requestHeaders("/a").last?["if-none-match"] == "\"v1\"")
            #expect(renewed.data == Data(png) && renewed.freshness?.lifetime == 600 && renewed.cacheControl == "max-age=600")
            await originals.flush()
            let written = try #require(Self.metadata(of: file))
            #expect(written["lifetime"] as? Double == 600 && written["cacheControl"] as? String == "max-age=600")
            #expect(written["etag"] as? String == "\"v1\"")
            #expect(try #require(written["receivedAt"] as? Double) >= keptAt)
            // The same file: only its attribute was written.
            var stat2 = stat()
            #expect(stat(file, &stat2) == 0)
            #expect(stat2.st_ino == stat1.st_ino)
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(png))

            // The library over the same directory finds the entry fresh: no request. With
            // the entry as first kept (max-age=0), it would revalidate.
            let manager = ImageManager(cache: imageCache, loader: downloader)
            manager.httpCachePolicy = .respectHeaders
            let loaded = try await manager.loadImage(with: url)
            #expect(loaded.cacheType == .disk)
            #expect(origin.requestCount("/a") == 2)
        }
    }

    @Test("what the stage does not read as an original: the proxy's former inline form, extended data that is not ours; an entry with none is a plain original")
    func foreignEntries() async throws {
        let directory = try TemporaryDirectory()
        let disk = DiskCache(directory: directory.url)
        try await disk.store(Data("WISRC1\n{\"etag\":\"\\\"x\\\"\"}\nBYTES".utf8), forKey: "former")
        try await disk.store(Data("BYTES".utf8), forKey: "foreign")
        try await disk.setExtendedData(Data("not json".utf8), forKey: "foreign")
        try await disk.store(Data("BYTES".utf8), forKey: "plain")
        let cache = TieredCache<OriginalData>(disk: disk, memoryBytes: 1 << 20)
        #expect(await cache.storedValue(forKey: "former") == nil)
        #expect(await cache.storedValue(forKey: "foreign") == nil)
        let plain = try #require(await cache.storedValue(forKey: "plain"))
        #expect(plain.data == Data("BYTES".utf8) && plain.validators.isEmpty && plain.cacheControl == nil)
    }

    @Test("where extended attributes are off, the metadata goes to the entry's sidecar and reads back from it")
    func sidecar() async throws {
        let directory = try TemporaryDirectory()
        var config = DiskCache.Config()
        config.usesExtendedAttributes = false
        let disk = DiskCache(directory: directory.url, config: config)
        let cache = TieredCache<OriginalData>(disk: disk, memoryBytes: 1 << 20)
        cache.store(OriginalData(data: Data("BYTES".utf8), etag: "\"s\"", cacheControl: "max-age=5"), forKey: "k")
        await cache.flush()
        let file = disk.cachePath(forKey: "k")
        #expect(Self.attribute(of: file) == nil)
        let sidecar = directory.url.appendingPathComponent("." + URL(fileURLWithPath: file).lastPathComponent + ".extended")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: sidecar)) as? [String: Any])
        #expect(json["etag"] as? String == "\"s\"")
        let read = try #require(await TieredCache<OriginalData>(disk: disk, memoryBytes: 1 << 20).storedValue(forKey: "k"))
        #expect(read.etag == "\"s\"" && read.cacheControl == "max-age=5" && read.data == Data("BYTES".utf8))
    }
}
