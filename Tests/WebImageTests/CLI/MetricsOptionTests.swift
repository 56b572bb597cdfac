import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// `--metrics`: the library's swift-metrics, collected by a real Prometheus registry in
/// the tool and printed on stderr, count what the loads did.
@Suite("webimage --metrics: the library's metrics", .serialized, .timeLimit(.minutes(2)))
struct MetricsOptionTests {
    /// The value of the sample `name` (with its labels, as printed) in Prometheus text.
    static func sample(_ name: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    @Test("downloads, failures by code, misses, then disk hits on a second run; stdout stays JSON only")
    func countsWhatHappened() async throws {
        try await TestOrigin.with { origin in
            let png = try Corpus.data("png/image-png/basi3p01_2.png")
            origin.route("/a.png", .init(body: Array(png), contentType: "image/png"))
            origin.route("/gone.png", .status(404))
            let cache = try TemporaryDirectory()
            let urls = ["/a.png", "/gone.png", "/a.png"].map { origin.url($0).absoluteString }

            let first = try await WebImageTool.run(["fetch"] + urls + ["--cache-dir", cache.path, "--json", "--metrics"])
            #expect(first.status == 1, "one URL failed")
            #expect(try first.jsonLines().count == 3, "stdout has only the JSON lines")
            #expect(Self.sample(WebImageMetrics.Name.downloadBytes, in: first.err) == Double(png.count),
                    "one coalesced transfer of the image; the 404's body is never read\n\(first.err)")
            #expect(Self.sample(#"webimage_load_failures_total{code="invalidDownloadStatusCode"}"#, in: first.err) == 1)
            #expect((Self.sample(WebImageMetrics.Name.cacheMisses, in: first.err) ?? 0) >= 2)
            #expect(first.err.contains(WebImageMetrics.Name.downloadDuration))

            let second = try await WebImageTool.run(["fetch", urls[0], "--cache-dir", cache.path, "--json", "--metrics"])
            #expect(second.status == 0)
            #expect(Self.sample(#"webimage_cache_hits_total{layer="disk"}"#, in: second.err) == 1, "\(second.err)")
            #expect(Self.sample(WebImageMetrics.Name.downloadBytes, in: second.err) ?? 0 == 0)
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test("retries, loads refused by the block list and hops refused by the address guard are counted")
    func retriesBlocksAndRefusals() async throws {
        try await TestOrigin.with { origin in
            let png = try Corpus.data("png/image-png/basi3p01_2.png")
            origin.route("/flaky.png", failing: 2, with: .status(503), then: .init(body: Array(png), contentType: "image/png"))
            origin.route("/gone.png", .status(404))
            let cache = try TemporaryDirectory()
            let (flaky, gone) = (origin.url("/flaky.png").absoluteString, origin.url("/gone.png").absoluteString)

            // In order: the second /gone.png starts after the first put it on the block list.
            let run = try await WebImageTool.run(
                ["fetch", flaky, gone, gone, "--sequential", "--retries", "2", "--cache-dir", cache.path, "--json", "--metrics"])
            #expect(run.status == 1)
            #expect(origin.requestCount("/flaky.png") == 3, "two 503s, then the image")
            #expect(Self.sample(WebImageMetrics.Name.downloadRetries, in: run.err) == 2, "\(run.err)")
            #expect(origin.requestCount("/gone.png") == 1, "the second load was refused before any request")
            #expect(Self.sample(WebImageMetrics.Name.blockedLoads, in: run.err) == 1)
            #expect(Self.sample(#"webimage_load_failures_total{code="blackListed"}"#, in: run.err) == 1)

            // A host name that resolves to loopback, refused by the guard before a connection.
            let local = "http://localhost:\(origin.port)/flaky.png"
            let refused = try await WebImageTool.run(
                ["fetch", local, "--block-private-addresses", "--cache-dir", cache.path, "--json", "--metrics"])
            #expect(refused.status == 1)
            #expect(Self.sample(WebImageMetrics.Name.forbiddenAddresses, in: refused.err) == 1, "\(refused.err)")
            #expect(Self.sample(#"webimage_load_failures_total{code="forbiddenAddress"}"#, in: refused.err) == 1)
            #expect(origin.requestCount("/flaky.png") == 3)
        }
    }
}
