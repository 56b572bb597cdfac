import CXattr
import Foundation
import Testing
import WebImage
import WebImageCodecs
import WebImageTestOrigin
@testable import WebImageServer

@Suite("Result and source caching, coalescing", .timeLimit(.minutes(1)))
struct CachingTests {
    @Test func aRepeatedRequestIsServedFromTheCache() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/a.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
            try await ProxyHarness.with(.unsigned) { proxy in
                let path = ProxyHarness.unsafePath(origin.url("/a.jpg"), "rs:fit:150:150")
                let first = try await proxy.get(path)
                let second = try await proxy.get(path)
                #expect(first.status == 200 && second.status == 200)
                #expect(first.body == second.body)
                #expect(origin.requestCount("/a.jpg") == 1)
                // Another size of the same source reads the source from the cache, not the origin.
                let other = try await proxy.get(ProxyHarness.unsafePath(origin.url("/a.jpg"), "rs:fill:90:90"))
                #expect(try Fixtures.decode(other.body).width == 90)
                #expect(origin.requestCount("/a.jpg") == 1)
            }
        }
    }

    /// Sources are cached in `originals/` as the image files themselves, their ETag in the
    /// entry's extended data; the folder of the former form (`sources/`, with the
    /// validators inline) is never read, and opening the cache removes its entries.
    @Test func sourcesAreImageFilesAndTheFormerFolderGoes() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            let jpeg = try Fixtures.landscapeJPEG()
            origin.route("/a.jpg", .init(body: jpeg, contentType: "image/jpeg", headers: [("ETag", "\"a1\"")]))
            let url = origin.url("/a.jpg")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("former-\(UUID().uuidString)")
            let former = directory.appendingPathComponent("sources")
            // A former entry for the same URL: the inline header, then bytes that are no image.
            try FileManager.default.createDirectory(at: former, withIntermediateDirectories: true)
            let formerFile = URL(fileURLWithPath: DiskCache(directory: former).cachePath(forKey: url.absoluteString))
            try Data("WISRC1\n{\"etag\":\"\\\"old\\\"\"}\nnot an image".utf8).write(to: formerFile)
            // A file of someone else's in that folder is left alone, and so the folder too.
            let foreign = former.appendingPathComponent("README")
            try Data("kept".utf8).write(to: foreign)
            let proxy = try await ProxyHarness.start(.unsigned, directory: directory)
            try await withCleanup {
                #expect(try await proxy.get(ProxyHarness.unsafePath(url, "rs:fit:150:150")).status == 200)
                #expect(origin.requestCount("/a.jpg") == 1)
                await proxy.server.sourceDisk?.flush()
                #expect(!FileManager.default.fileExists(atPath: formerFile.path))
                #expect(FileManager.default.fileExists(atPath: foreign.path))
                let file = try #require(proxy.server.sourceDisk?.cachePath(forKey: url.absoluteString))
                #expect(file.hasPrefix(directory.appendingPathComponent("originals").path))
                #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(jpeg))
                // Its extended data: the attribute, else (no user attributes here) the sidecar.
                let size = getxattr(file, "user.webimage.extended", nil, 0)
                var attribute = [UInt8](repeating: 0, count: max(0, size))
                let json = size > 0 && getxattr(file, "user.webimage.extended", &attribute, size) == size
                    ? Data(attribute)
                    : try Data(contentsOf: URL(fileURLWithPath: file).deletingLastPathComponent()
                        .appendingPathComponent("." + URL(fileURLWithPath: file).lastPathComponent + ".extended"))
                let stored = try JSONSerialization.jsonObject(with: json) as? [String: Any]
                #expect(stored?["etag"] as? String == "\"a1\"")
            } cleanup: {
                await proxy.shutdown()
            }
        }
    }

    /// The rule both source kinds (http and S3) are kept by: `no-store`, and in a shared
    /// cache `private`, as directives of the source's `Cache-Control`, in any case and
    /// place, not substrings of another one.
    @Test func noStoreIsADirectiveOfTheSourcesCacheControl() {
        func kept(_ cacheControl: String?, shared: Bool = true) -> Bool {
            OriginalData(data: Data([1]), etag: nil, lastModified: nil, cacheControl: cacheControl, expires: nil)
                .mayBeKept(shared: shared)
        }
        #expect(!kept("no-store") && !kept("no-store", shared: false))
        #expect(!kept("public, No-Store"))
        #expect(!kept("max-age=0 , no-store ,must-revalidate"))
        #expect(!kept("Private, max-age=60") && kept("private, max-age=60", shared: false))
        #expect(kept(nil))
        #expect(kept("no-cache, max-age=60"))
        #expect(kept("x-no-store-hint=1") && kept("x-private=1"))
        // A qualified private names header fields a shared cache must drop; a source copy keeps none.
        #expect(kept("private=\"Set-Cookie\", max-age=60"))
    }

    /// A source answered with `Cache-Control: no-store` (or `private`, which a shared cache
    /// must not keep either) is used for the render that asked and not kept: another size of
    /// it goes to the origin again (its source stage's `make` says `store: .none`), while the
    /// result itself is cached as any other.
    @Test(arguments: ["no-store", "private, max-age=3600"])
    func aNoStoreSourceIsNotKept(_ cacheControl: String) async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/ns.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg",
                                          headers: [("Cache-Control", cacheControl)]))
            try await ProxyHarness.with(.unsigned) { proxy in
                let path = ProxyHarness.unsafePath(origin.url("/ns.jpg"), "rs:fit:150:150")
                #expect(try await proxy.get(path).status == 200)
                #expect(try await proxy.get(path).status == 200)
                #expect(origin.requestCount("/ns.jpg") == 1)
                let other = try await proxy.get(ProxyHarness.unsafePath(origin.url("/ns.jpg"), "rs:fill:90:90"))
                #expect(try Fixtures.decode(other.body).width == 90)
                #expect(origin.requestCount("/ns.jpg") == 2)
            }
        }
    }

    /// The source cache follows the source's own caching headers: a copy they say is fresh
    /// (or that came with none) is used as is; a stale one is revalidated before a new
    /// render (a 304 costs no body), a changed source is seen, and within `stale-if-error`
    /// the stale copy renders when the origin fails.
    @Test func aStaleSourceIsRevalidated() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            let jpeg = try Fixtures.landscapeJPEG()
            var stale = TestOrigin.Response(body: jpeg, contentType: "image/jpeg", headers: [("Cache-Control", "max-age=0, stale-if-error=600")])
            stale.etag = "\"v1\""
            origin.route("/stale.jpg", stale)
            origin.route("/fresh.jpg", .init(body: jpeg, contentType: "image/jpeg", headers: [("Cache-Control", "max-age=3600")]))
            origin.route("/plain.jpg", .init(body: jpeg, contentType: "image/jpeg"))
            // This is a shared cache: s-maxage is its lifetime, whatever max-age says.
            origin.route("/shared.jpg", .init(body: jpeg, contentType: "image/jpeg", headers: [("Cache-Control", "max-age=0, s-maxage=3600")]))
            origin.route("/private.jpg", .init(body: jpeg, contentType: "image/jpeg", headers: [("Cache-Control", "max-age=3600, s-maxage=0")]))
            try await ProxyHarness.with(.unsigned) { proxy in
                func render(_ path: String, _ options: String) async throws -> DecodedImage {
                    let answer = try await proxy.get(ProxyHarness.unsafePath(origin.url(path), options))
                    #expect(answer.status == 200, "\(path) \(options)")
                    return try Fixtures.decode(answer.body)
                }
                for path in ["/fresh.jpg", "/plain.jpg", "/stale.jpg", "/shared.jpg", "/private.jpg"] {
                    _ = try await render(path, "rs:fit:150:150")
                    _ = try await render(path, "rs:fill:90:90")
                }
                #expect(origin.requestCount("/fresh.jpg") == 1 && origin.requestCount("/plain.jpg") == 1)
                #expect(origin.requestCount("/shared.jpg") == 1 && origin.requestCount("/private.jpg") == 2)
                #expect(origin.requestCount("/stale.jpg") == 2)
                #expect(origin.requestHeaders("/stale.jpg").last?["if-none-match"] == "\"v1\"")

                // Changed at the origin: the next render is made from the new bytes (a square GIF).
                var changed = TestOrigin.Response(body: try Fixtures.animatedGIF(), contentType: "image/gif",
                                                  headers: [("Cache-Control", "max-age=0, stale-if-error=600")])
                changed.etag = "\"v2\""
                origin.route("/stale.jpg", changed)
                let square = try await render("/stale.jpg", "rs:fit:60:60")
                #expect(square.width == 60 && square.height == 60)
                #expect(origin.requestCount("/stale.jpg") == 3)
                // A result made before the change is still the cached one (as the docs say).
                let earlier = try await render("/stale.jpg", "rs:fit:150:150")
                #expect(earlier.width == 150 && earlier.height == 100)
                #expect(origin.requestCount("/stale.jpg") == 3)

                // The origin fails: within stale-if-error the kept copy renders.
                origin.route("/stale.jpg", .status(503))
                let served = try await render("/stale.jpg", "rs:fit:40:40")
                #expect(served.width == 40 && served.height == 40)
                #expect(origin.requestCount("/stale.jpg") == 4)
            }
        }
    }

    @Test func noCacheFetchesAgain() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/a.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
            var config = ProxyConfig.unsigned
            config.isCacheEnabled = false
            try await ProxyHarness.with(config) { proxy in
                let path = ProxyHarness.unsafePath(origin.url("/a.jpg"), "rs:fit:150:150")
                let first = try await proxy.get(path)
                let second = try await proxy.get(path)
                #expect(first.status == 200 && second.status == 200)
                #expect(origin.requestCount("/a.jpg") == 2)
                #expect(!FileManager.default.fileExists(atPath: proxy.directory.appendingPathComponent("results").path))
            }
        }
    }

    /// Eight identical requests at once, one transform slot and no wait line: each
    /// request that did not join the first one's render would get 503.
    @Test func identicalRequestsShareOneDownloadAndOneRender() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/slow.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg", delay: .milliseconds(800)))
            var config = ProxyConfig.unsigned
            config.isCacheEnabled = false
            config.maxConcurrentTransforms = 1
            config.maxQueuedTransforms = 0
            try await ProxyHarness.with(config) { proxy in
                let path = ProxyHarness.unsafePath(origin.url("/slow.jpg"), "rs:fill:80:80")
                let answers = try await withThrowingTaskGroup(of: ProxyHarness.Answer.self) { group in
                    for _ in 0..<8 { group.addTask { try await proxy.get(path) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(answers.map(\.status) == Array(repeating: 200, count: 8))
                #expect(Set(answers.map(\.body)).count == 1)
                #expect(origin.requestCount("/slow.jpg") == 1)
            }
        }
    }

    @Test func differentSizesShareOneDownload() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/slow.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg", delay: .milliseconds(800)))
            var config = ProxyConfig.unsigned
            config.isCacheEnabled = false
            try await ProxyHarness.with(config) { proxy in
                let sizes = [(60, 40), (120, 80), (300, 200), (90, 90)]
                let answers = try await withThrowingTaskGroup(of: (Int, Int, ProxyHarness.Answer).self) { group in
                    for (w, h) in sizes {
                        group.addTask {
                            (w, h, try await proxy.get(ProxyHarness.unsafePath(origin.url("/slow.jpg"), "rs:fill:\(w):\(h)")))
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                for (w, h, answer) in answers {
                    let image = try Fixtures.decode(answer.body)
                    #expect((image.width, image.height) == (w, h))
                }
                #expect(origin.requestCount("/slow.jpg") == 1)
            }
        }
    }
}
