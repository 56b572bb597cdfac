import Foundation
import Synchronization
import Testing
import WebImage
import WebImageCodecs
import WebImageTestOrigin
@testable import WebImageServer

/// What a cold proxy request starts of its own (WhereTheWorkRuns.md: no task). The render
/// and the fetch run through `PipelineStage`, whose `SingleFlight` runs work on the first
/// caller's task (checked by `SingleFlightTests`); this counts their runs and the
/// policy-check tasks, for a source named by a host name the SSRF guard must resolve.
@Suite("A cold proxy request starts no task of its own", .timeLimit(.minutes(1)))
struct SelfMadeTasksTests {
    /// Resolves `origin.test` to the test origins' address (127.0.0.2), counting lookups.
    final class OriginResolver: HostResolving {
        private let count = Mutex(0)
        var lookups: Int { count.withLock { $0 } }

        func addresses(for host: String, port: Int) async throws(WebImageError) -> [IPAddress] {
            count.withLock { $0 += 1 }
            guard host == "origin.test", let address = IPAddress("127.0.0.2") else {
                throw WebImageError(.cannotFindHost, "\(host) is not resolved in this test")
            }
            return [address]
        }
    }

    @Test("a cold render of a source at a host name: one render run, one fetch run, the name resolved on the request's task")
    func coldRequest() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/a.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
            let resolver = OriginResolver()
            var config = ProxyConfig.unsigned
            config.isCacheEnabled = false
            config.hostResolver = resolver
            try await ProxyHarness.with(config) { proxy in
                let engine = proxy.server
                let source = try #require(URL(string: "http://origin.test:\(origin.port)/a.jpg"))
                let first = try await proxy.get(ProxyHarness.unsafePath(source, "rs:fit:150:150"))
                #expect(first.status == 200)
                #expect(engine.renders.startedCount == 1)
                #expect(engine.pipeline.originals.startedCount == 1)
                // The SSRF guard is on and resolved the name (to 127.0.0.2, an allowed
                // network) on the request's task: no policy-check task.
                #expect(!engine.downloader.config.hopPolicy.isEmpty)
                #expect(resolver.lookups == 1)
                #expect(origin.requestCount("/a.jpg") == 1)
                #expect(engine.downloader.policyCheckTasks == 0)
                let second = try await proxy.get(ProxyHarness.unsafePath(source, "rs:fit:90:90"))
                #expect(second.status == 200)
                #expect(engine.renders.startedCount == 2)
                #expect(engine.downloader.policyCheckTasks == 0)
            }
        }
    }

    @Test("a source host name the guard refuses answers 403 with no task and no connection")
    func refusedName() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/a.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
            var config = ProxyConfig.unsigned
            config.isCacheEnabled = false
            // No network allowed: origin.test's address, 127.0.0.2, is loopback and refused.
            config.allowedNetworks = []
            config.hostResolver = OriginResolver()
            try await ProxyHarness.with(config) { proxy in
                let source = try #require(URL(string: "http://origin.test:\(origin.port)/a.jpg"))
                let answer = try await proxy.get(ProxyHarness.unsafePath(source, "rs:fit:150:150"))
                #expect(answer.status == 403)
                #expect(proxy.server.downloader.policyCheckTasks == 0)
                #expect(origin.connectionCount == 0)
            }
        }
    }
}
