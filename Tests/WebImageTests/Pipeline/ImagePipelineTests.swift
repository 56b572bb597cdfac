import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageTestOrigin

/// The pipeline's presets over a real downloader and a loopback origin: the proxy's (a
/// shared cache, a fetcher per kind of source) and bulk's (no cache, one fetch per URL in
/// flight). The library's preset runs every ``ImageManager`` test.
@Suite("ImagePipeline: the proxy and bulk presets", .timeLimit(.minutes(1)))
struct ImagePipelineTests {
    static let bytes = Array("not really a JPEG, but bytes".utf8)

    /// Counts the revalidations answered 304, by URL path.
    final class NotModified: Sendable {
        let paths = Mutex<[String]>([])
        func record(_ url: URL) { paths.withLock { $0.append(url.path) } }
    }

    /// The proxy preset over `cache`, routed by path as a server routes by kind of source:
    /// `/refused…` is refused, `/afresh…` is fetched every time (a `local://` file), the
    /// rest is kept and checked when stale (http).
    static func proxy(
        _ cache: (any PipelineStageCache<OriginalData>)?, _ downloader: ImageDownloader, _ notModified: NotModified
    ) -> ImagePipeline<SourcesPreset<WebImageError>> {
        ImagePipeline(.proxy(
            cache: cache,
            route: { url throws(WebImageError) in
                if url.path.hasPrefix("/refused") { throw WebImageError(.invalidURL, "not a source this server takes") }
                if url.path.hasPrefix("/afresh") { return .init(downloader, isKept: false) }
                return .init(downloader, revalidation: .whenStale)
            },
            failure: { $0 }, waitFailure: { _ in .cancelled() }, onNotModified: notModified.record))
    }

    static func withCache(_ body: (TieredCache<OriginalData>) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = TieredCache<OriginalData>(disk: DiskCache(directory: root), memoryBytes: 1 << 20)
        try await body(cache)
        await cache.flush()
    }

    @Test("proxy: a kept source is fetched once; a source routed as not kept is fetched every time; a refused one is never fetched")
    func proxyRoutes() async throws {
        try await Self.withCache { cache in
            try await OriginalStageTests.withOrigin { origin, downloader in
                origin.route("/kept", .init(body: Self.bytes, contentType: "image/jpeg"))
                origin.route("/afresh", .init(body: Self.bytes, contentType: "image/jpeg"))
                origin.route("/refused", .init(body: Self.bytes, contentType: "image/jpeg"))
                let pipeline = Self.proxy(cache, downloader, NotModified())
                for _ in 0..<3 {
                    let kept = try await pipeline.original(for: origin.url("/kept"))
                    let afresh = try await pipeline.original(for: origin.url("/afresh"))
                    #expect(kept.data == Data(Self.bytes) && afresh.data == Data(Self.bytes))
                }
                #expect(origin.requestCount("/kept") == 1)
                #expect(origin.requestCount("/afresh") == 3)
                #expect(cache.memoryValue(forKey: origin.url("/afresh").absoluteString) == nil)
                await #expect(throws: WebImageError.self) { try await pipeline.original(for: origin.url("/refused")) }
                #expect(origin.requestCount("/refused") == 0)
            }
        }
    }

    // RFC 9111 §5.2.2.7: a shared cache must not store a `private` response; §5.2.2.10:
    // `s-maxage` overrides `max-age` for a shared cache only. A private cache (the
    // library's) keeps the first and takes the second's `max-age`.
    @Test("proxy: its cache is a shared one: private is not kept, s-maxage=0 is revalidated despite max-age (a 304 renews it)")
    func proxyCacheIsShared() async throws {
        try await Self.withCache { cache in
            try await OriginalStageTests.withOrigin { origin, downloader in
                origin.route("/private", .init(body: Self.bytes, contentType: "image/jpeg", headers: [("Cache-Control", "private, max-age=600")]))
                var shared = TestOrigin.Response(body: Self.bytes, contentType: "image/jpeg", headers: [("Cache-Control", "max-age=600, s-maxage=0")])
                shared.etag = "\"s1\""
                origin.route("/shared", shared)
                let notModified = NotModified()
                let pipeline = Self.proxy(cache, downloader, notModified)
                _ = try await pipeline.original(for: origin.url("/private"))
                _ = try await pipeline.original(for: origin.url("/private"))
                #expect(origin.requestCount("/private") == 2)

                _ = try await pipeline.original(for: origin.url("/shared"))
                let again = try await pipeline.original(for: origin.url("/shared"))
                #expect(again.data == Data(Self.bytes))
                #expect(origin.requestCount("/shared") == 2)
                #expect(origin.requestHeaders("/shared").last?["if-none-match"] == "\"s1\"")
                #expect(notModified.paths.withLock { $0 } == ["/shared"])
                #expect(pipeline.originals.notModifiedCount == 1)
            }
        }
    }

    @Test("bulk: callers of one URL at the same time share one fetch, and nothing is kept after it")
    func bulkSharesAndKeepsNothing() async throws {
        try await OriginalStageTests.withOrigin { origin, downloader in
            origin.route("/sample", .init(body: Self.bytes, contentType: "image/jpeg",
                                          headers: [("Cache-Control", "max-age=600")], delay: .milliseconds(300)))
            let pipeline = ImagePipeline(SourcesPreset<WebImageError>.bulk(downloader, failure: { $0 }, waitFailure: { _ in .cancelled() }))
            let url = origin.url("/sample")
            let results = await withTaskGroup(of: Data?.self) { group in
                for _ in 0..<8 { group.addTask { try? await pipeline.original(for: url).data } }
                return await group.reduce(into: [Data?]()) { $0.append($1) }
            }
            #expect(results.count == 8 && results.allSatisfy { $0 == Data(Self.bytes) })
            #expect(origin.requestCount("/sample") == 1)
            #expect(pipeline.originals.startedCount == 1)
            // Fresh for ten minutes, but bulk keeps no copy: the next caller fetches again.
            _ = try await pipeline.original(for: url)
            #expect(origin.requestCount("/sample") == 2)
        }
    }
}
