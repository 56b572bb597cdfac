import Foundation
import Prometheus
import Testing
import WebImageCodecs
@testable import WebImageServer

@Suite("Health, metrics, gallery", .timeLimit(.minutes(1)))
struct ServiceTests {
    @Test func healthAndMetrics() async throws {
        let registry = PrometheusCollectorRegistry()
        registry.makeCounter(descriptor: MetricNameDescriptor(metricName: "webimage_test_marker", unitName: "total", helpText: "A marker"))
            .increment(by: Int64(3))
        try await ProxyHarness.with(.unsigned, metrics: registry) { proxy in
            let health = try await proxy.get("/health")
            #expect(health.status == 200)
            #expect(String(decoding: health.body, as: UTF8.self) == #"{"status":"ok"}"#)
            let metrics = try await proxy.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
            #expect(String(decoding: metrics.body, as: UTF8.self).contains("webimage_test_marker_total 3"))
            #expect(try await proxy.get("/nothing-here").status == 404)
        }
    }

    /// Every gallery image loads, at the size its tag declares (twice that for 2×).
    @Test func galleryImagesLoadAtTheirDeclaredSizes() async throws {
        var config = ProxyConfig.testing
        config.keys = [try #require(URLSigner.KeyPair(hexKey: "0123456789abcdef", hexSalt: "fedcba9876543210"))]
        try await ProxyHarness.with(config) { proxy in
            let page = try await proxy.get("/gallery")
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            let html = String(decoding: page.body, as: UTF8.self)
            let tags = html.matches(of: /<img src="([^"]+)" srcset="[^ ]+ 1x, ([^ ]+) 2x" data-width="(\d+)" data-height="(\d+)"/)
            #expect(tags.count == Gallery.tiles.count)
            for tag in tags {
                let (one, two) = (String(tag.output.1), String(tag.output.2))
                let w = try #require(Int(tag.output.3)), h = try #require(Int(tag.output.4))
                let answer1 = try await proxy.get(one)
                #expect(answer1.status == 200, "\(one)")
                let image1 = try Fixtures.decode(answer1.body)
                #expect(image1.width == w && image1.height == h, "\(one)")
                let image2 = try Fixtures.decode(try await proxy.get(two).body)
                #expect(image2.width == 2 * w && image2.height == 2 * h, "\(two)")
            }
            let example = try await proxy.get("/examples/sunset.jpg")
            #expect(ImageFormat.detect(example.body) == .jpeg)
        }
    }

    /// The gallery signs as the server checks: a truncated signature (`--signature-size 8`:
    /// 8 bytes of MAC, 11 base64url characters) after the path prefix; each image answers 200.
    @Test("gallery URLs follow --signature-size and --path-prefix")
    func galleryFollowsSignatureSizeAndPrefix() async throws {
        var config = ProxyConfig.testing
        config.keys = [try #require(URLSigner.KeyPair(hexKey: "0123456789abcdef", hexSalt: "fedcba9876543210"))]
        config.signatureSize = 8
        config.language.pathPrefix = "/images"
        try await ProxyHarness.with(config) { proxy in
            let html = String(decoding: try await proxy.get("/gallery").body, as: UTF8.self)
            let sources = html.matches(of: /<img src="([^"]+)"/).map { String($0.output.1) }
            #expect(sources.count == Gallery.tiles.count)
            for source in sources {
                let parts = source.split(separator: "/")
                #expect(parts.first == "images", "\(source)")
                // 8 bytes of MAC in unpadded base64url are 11 characters.
                #expect(parts.dropFirst().first?.count == 11, "\(source)")
                #expect(try await proxy.get(source).status == 200, "\(source)")
            }
        }
    }
}
