import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// Loads through the manager from a misbehaving server: each fault ends the load once with
/// its documented code, writes nothing to either cache, leaves no transfer or operation
/// behind, and puts the URL on the failed list only as the loader's policy says
/// (timeouts and refused connections never).
@Suite("Hardening: network faults", .timeLimit(.minutes(3)))
struct NetworkFaultTests {
    /// One misbehaviour and what it must produce.
    struct Fault: Sendable, CustomStringConvertible {
        var description: String
        var code: WebImageError.Code
        /// The failed-URL outcome required here; `nil` leaves it to the loader's policy.
        var blocked: Bool?
        var status: Int?
        var config: @Sendable (inout DownloaderConfig) -> Void = { _ in }
        /// Serves the fault on the origin and returns the URL to load.
        var serve: @Sendable (TestOrigin) async throws -> URL
    }

    static let image = FaultFixture.png()

    static let faults: [Fault] = [
        Fault(description: "connection closed mid-body", code: .invalidDownloadResponse) { origin in
            origin.route("/reset.png", .init(body: image, contentType: "image/png", delivery: .closeAfter(bytes: 40)))
            return origin.url("/reset.png")
        },
        Fault(description: "Content-Length larger than the body", code: .invalidDownloadResponse) { origin in
            var response = TestOrigin.Response(body: image, contentType: "image/png")
            response.declaredLength = image.count + 500
            origin.route("/short.png", response)
            return origin.url("/short.png")
        },
        Fault(description: "one byte a second, past the timeout", code: .timedOut, blocked: false,
              config: { $0.downloadTimeout = 1.5 }) { origin in
            origin.route("/drip.png", .init(body: image, contentType: "image/png", delivery: .drip(bytes: 1, every: .seconds(1))))
            return origin.url("/drip.png")
        },
        Fault(description: "500", code: .invalidDownloadStatusCode, status: 500) { origin in
            origin.route("/500.png", .status(500))
            return origin.url("/500.png")
        },
        Fault(description: "503", code: .invalidDownloadStatusCode, status: 503) { origin in
            origin.route("/503.png", .status(503))
            return origin.url("/503.png")
        },
        Fault(description: "404", code: .invalidDownloadStatusCode, status: 404) { origin in
            origin.url("/missing.png")
        },
        Fault(description: "a redirect loop", code: .tooManyRedirects) { origin in
            origin.route("/loop-a.png", .redirect(to: "/loop-b.png"))
            origin.route("/loop-b.png", .redirect(to: "/loop-a.png"))
            return origin.url("/loop-a.png")
        },
        Fault(description: "a redirect to ftp:", code: .tooManyRedirects) { origin in
            origin.route("/to-ftp.png", .redirect(to: "ftp://127.0.0.1/image.png"))
            return origin.url("/to-ftp.png")
        },
        Fault(description: "a redirect to file:", code: .tooManyRedirects) { origin in
            origin.route("/to-file.png", .redirect(to: "file:///etc/passwd"))
            return origin.url("/to-file.png")
        },
        Fault(description: "wrong Content-Type", code: .invalidDownloadContentType,
              config: { $0.acceptableContentTypes = ["image/*"] }) { origin in
            origin.route("/html.png", .init(body: image, contentType: "text/html"))
            return origin.url("/html.png")
        },
        Fault(description: "over maxResponseBytes with Content-Length", code: .responseTooLarge,
              config: { $0.maxResponseBytes = 512 }) { origin in
            origin.route("/big.png", .init(body: FaultFixture.png(width: 200, height: 200), contentType: "image/png"))
            return origin.url("/big.png")
        },
        Fault(description: "over maxResponseBytes, chunked", code: .responseTooLarge,
              config: { $0.maxResponseBytes = 512 }) { origin in
            let body = FaultFixture.png(width: 200, height: 200)
            origin.route("/big-chunked.png", .init(body: body, contentType: "image/png",
                                                   delivery: .chunked(pieces: 6, pause: .milliseconds(5))))
            return origin.url("/big-chunked.png")
        },
        Fault(description: "accepts and never answers", code: .timedOut, blocked: false,
              config: { $0.downloadTimeout = 1 }) { origin in
            origin.route("/silent.png", .init(body: image, contentType: "image/png", delay: .seconds(120)))
            return origin.url("/silent.png")
        },
        Fault(description: "a refused port", code: .cannotConnect, blocked: false) { _ in
            try await FaultFixture.refusedURL()
        },
    ]

    @Test("each fault fails once with its code, caches nothing, leaves nothing running", arguments: faults)
    func fault(_ fault: Fault) async throws {
        let fixture = try await FaultFixture(fault.config)
        let url = try await fault.serve(fixture.origin)
        let results = await fixture.load(url)

        #expect(results.count == 1, "\(results.count) results")
        let error = try #require(results.last?.error, "the load did not fail")
        #expect(error.code == fault.code, "\(error)")
        if let status = fault.status { #expect(error.httpStatusCode == status) }
        #expect(results.last?.image == nil && results.last?.isFinished == true)

        #expect(await ManagerTestKit.eventually { fixture.downloader.currentDownloadCount == 0 })
        #expect(!fixture.manager.isRunning)
        #expect(await fixture.cache.totalDiskCount() == 0)
        let key = try #require(fixture.manager.cacheKey(for: url))
        #expect(fixture.cache.imageFromMemory(forKey: key) == nil)

        let policy = fixture.downloader.shouldBlockFailedURL(url, error: error)
        #expect(fixture.manager.isFailedURL(url) == policy)
        if let blocked = fault.blocked { #expect(policy == blocked) }
        if policy {
            // Blocked: the next load fails at once without asking the server again.
            let count = fixture.origin.requestCount(url.path)
            #expect(await fixture.load(url).last?.error?.code == .blackListed)
            #expect(fixture.origin.requestCount(url.path) == count)
        }
        await fixture.shutdown()
    }
}
