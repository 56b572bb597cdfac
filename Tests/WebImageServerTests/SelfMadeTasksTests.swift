import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin
@testable import WebImageServer

/// What a cold proxy request starts of its own (WhereTheWorkRuns.md: no task). The render
/// and the fetch run through `PipelineStage`, whose `SingleFlight` runs work on the first
/// caller's task (checked by `SingleFlightTests`); this counts their runs and the
/// policy-check tasks.
@Suite("A cold proxy request starts no task of its own", .timeLimit(.minutes(1)))
struct SelfMadeTasksTests {
    @Test("a cold render: one render run, one fetch run, no policy-check task for an address literal")
    func coldRequest() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/a.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
            var config = ProxyConfig.unsigned
            config.isCacheEnabled = false
            try await ProxyHarness.with(config) { proxy in
                let engine = proxy.server
                let first = try await proxy.get(ProxyHarness.unsafePath(origin.url("/a.jpg"), "rs:fit:150:150"))
                #expect(first.status == 200)
                #expect(engine.renders.startedCount == 1)
                #expect(engine.sources.originals.startedCount == 1)
                // The SSRF guard is on (127.0.0.2 is allowed as a network): the hop to the
                // literal address is checked without a task.
                #expect(!engine.downloader.config.hopPolicy.isEmpty)
                #expect(engine.downloader.policyCheckTasks == 0)
                let second = try await proxy.get(ProxyHarness.unsafePath(origin.url("/a.jpg"), "rs:fit:90:90"))
                #expect(second.status == 200)
                #expect(engine.renders.startedCount == 2)
                #expect(engine.downloader.policyCheckTasks == 0)
            }
        }
    }
}
