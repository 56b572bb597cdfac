import Foundation
import NIOCore
import NIOPosix
import Testing
@testable import WebImage
import WebImageTestOrigin
@testable import WebImageServer

@Suite("Load limits", .timeLimit(.minutes(1)))
struct LimitsTests {
    @Test func aFullTransformQueueAnswers503WithRetryAfter() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
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
    }

    /// A request waiting in line for a transform slot or for memory: when its own request
    /// deadline passes first it is a 504 (`timedOut`), when the gate's longest wait passes
    /// first a 503 (`overloaded`), when its client leaves a 499.
    @Test func aWaitInLineEndsAs504AtTheDeadlineAnd503AtTheGatesLongestWait() async throws {
        let gate = AdmissionGate(capacity: 1, maxWaiting: 4, maxWait: .seconds(10))
        try await gate.acquire(1)
        let start = ContinuousClock.now
        await #expect(throws: ProxyError.requestTimedOut) {
            try await gate.admit(units: 1, deadline: .now + .milliseconds(100)) { () }
        }
        #expect(ContinuousClock.now - start >= .milliseconds(90))
        let impatient = AdmissionGate(capacity: 1, maxWaiting: 4, maxWait: .milliseconds(50))
        try await impatient.acquire(1)
        await #expect(throws: ProxyError.overloaded) {
            try await impatient.admit(units: 1, deadline: .now + .seconds(10)) { () }
        }
        let leaving = Task { try await gate.admit(units: 1, deadline: .now + .seconds(10)) { () } }
        try await Task.sleep(for: .milliseconds(20))
        leaving.cancel()
        await #expect(throws: ProxyError.clientClosedRequest) { try await leaving.value }
        gate.release(1)
        impatient.release(1)
        #expect(gate.usedUnits == 0 && impatient.usedUnits == 0)
    }

    /// The request that runs a render checks its deadline between stages: one that waited
    /// for the slot and then for its source past the request timeout answers 504 once the
    /// fetch returns (imgproxy checks its timeout between steps too).
    @Test func aRenderPastItsDeadlineAfterTheFetchAnswers504() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            let jpeg = try Fixtures.landscapeJPEG()
            origin.route("/first.jpg", .init(body: jpeg, contentType: "image/jpeg", delay: .milliseconds(600)))
            origin.route("/second.jpg", .init(body: jpeg, contentType: "image/jpeg", delay: .milliseconds(600)))
            var config = ProxyConfig.unsigned
            config.maxConcurrentTransforms = 1
            config.maxQueuedTransforms = 4
            config.requestTimeout = 1
            try await ProxyHarness.with(config) { proxy in
                let first = Task { try await proxy.get(ProxyHarness.unsafePath(origin.url("/first.jpg"), "rs:fit:50:50")) }
                for _ in 0..<200 where origin.requestCount("/first.jpg") == 0 { try await Task.sleep(for: .milliseconds(5)) }
                let second = try await proxy.get(ProxyHarness.unsafePath(origin.url("/second.jpg"), "rs:fit:50:50"))
                #expect(try await first.value.status == 200)
                #expect(origin.requestCount("/second.jpg") == 1, "it got the slot and fetched")
                #expect(second.status == 504)
                #expect(second.errorCode?.name == "timedOut")
            }
        }
    }

    /// Slowloris: 1000 connections that never send a request do not stop real clients.
    @Test func idleConnectionsDoNotStarveRequests() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
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
}
