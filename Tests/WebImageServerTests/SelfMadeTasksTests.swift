import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin
@testable import WebImageServer

/// How many tasks the proxy starts of its own for a cold request, counted by the
/// primitives it runs on (WhereTheWorkRuns.md: none; the render runs on the request's task).
@Suite("A cold proxy request starts no task of its own", .timeLimit(.minutes(1)))
struct SelfMadeTasksTests {
    @Test("a cold render: on the request's task, the source fetch on it too, no policy-check task for an address literal")
    func coldRequest() async throws {
        let origin = try await TestOrigin.start(host: "127.0.0.2")
        defer { Task { await origin.shutdown() } }
        origin.route("/a.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
        var config = ProxyConfig.unsigned
        config.isCacheEnabled = false
        try await ProxyHarness.with(config) { proxy in
            let engine = proxy.server
            let first = try await proxy.get(ProxyHarness.unsafePath(origin.url("/a.jpg"), "rs:fit:150:150"))
            #expect(first.status == 200)
            #expect(engine.renders.startedCount == 1 && engine.renders.tasksStarted == 0)
            #expect(engine.sources.fetches.startedCount == 1 && engine.sources.fetches.tasksStarted == 0)
            // The SSRF guard is on (127.0.0.2 is allowed as a network): the hop to the
            // literal address is checked without a task.
            #expect(!engine.downloader.config.hopPolicy.isEmpty)
            #expect(engine.downloader.policyCheckTasks == 0)
            let second = try await proxy.get(ProxyHarness.unsafePath(origin.url("/a.jpg"), "rs:fit:90:90"))
            #expect(second.status == 200)
            #expect(engine.renders.startedCount == 2 && engine.renders.tasksStarted == 0)
            #expect(engine.sources.fetches.tasksStarted == 0)
            #expect(engine.downloader.policyCheckTasks == 0)
        }
    }
}
