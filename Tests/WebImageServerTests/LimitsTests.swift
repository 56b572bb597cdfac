import Foundation
import NIOCore
import NIOPosix
import Testing
import WebImageTestOrigin
@testable import WebImageServer

@Suite("Load limits", .timeLimit(.minutes(1)))
struct LimitsTests {
    @Test func aFullTransformQueueAnswers503WithRetryAfter() async throws {
        let origin = try await TestOrigin.start(host: "127.0.0.2")
        defer { Task { await origin.shutdown() } }
        let jpeg = try Fixtures.landscapeJPEG()
        origin.route("/slow.jpg", .init(body: jpeg, contentType: "image/jpeg", delay: .milliseconds(1500)))
        origin.route("/other.jpg", .init(body: jpeg, contentType: "image/jpeg"))
        var config = ProxyConfig.unsigned
        config.maxConcurrentTransforms = 1
        config.maxQueuedTransforms = 0
        try await ProxyHarness.with(config) { proxy in
            let slow = Task { try await proxy.get(ProxyHarness.unsafePath(origin.url("/slow.jpg"), "rs:fit:50:50")) }
            // The slow request holds the only slot once the origin has seen it.
            for _ in 0..<200 where origin.requestCount("/slow.jpg") == 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(origin.requestCount("/slow.jpg") == 1)
            let refused = try await proxy.get(ProxyHarness.unsafePath(origin.url("/other.jpg"), "rs:fit:50:50"))
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "1")
            #expect(refused.errorCode?.name == "overloaded")
            #expect(origin.requestCount("/other.jpg") == 0)
            #expect(try await slow.value.status == 200)
            // With the slot free again the same request succeeds.
            #expect(try await proxy.get(ProxyHarness.unsafePath(origin.url("/other.jpg"), "rs:fit:50:50")).status == 200)
        }
    }

    /// Slowloris: 1000 connections that never send a request do not stop real clients.
    @Test func idleConnectionsDoNotStarveRequests() async throws {
        let origin = try await TestOrigin.start(host: "127.0.0.2")
        defer { Task { await origin.shutdown() } }
        origin.route("/a.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
        try await ProxyHarness.with(.unsigned) { proxy in
            let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            var idle: [any Channel] = []
            for _ in 0..<1000 {
                idle.append(try await bootstrap.connect(host: "127.0.0.1", port: proxy.port).get())
            }
            // Half of them send the start of a request and stop there.
            for channel in idle.prefix(500) {
                try await channel.writeAndFlush(ByteBuffer(string: "GET /health HTTP/1.1\r\nHost: x\r\n")).get()
            }
            let answer = try await proxy.get(ProxyHarness.unsafePath(origin.url("/a.jpg"), "rs:fit:64:64"))
            #expect(answer.status == 200)
            #expect(try await proxy.get("/health").status == 200)
            #expect(idle.filter(\.isActive).count == 1000)
            for channel in idle { try? await channel.close().get() }
        }
    }
}
