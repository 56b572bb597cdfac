import Foundation
import NIOCore
import NIOPosix
import Testing
import WebImage
import WebImageCodecs
import WebImageTestOrigin
@testable import WebImageServer

/// Issue 23 through the real `ImageProxy` over loopback HTTP: the allowlist on every
/// redirect hop, settings in every cache key, animations for browsers, and a client
/// that goes away.
@Suite("Proxy safety", .timeLimit(.minutes(1)))
struct ProxySafetyTests {
    @Test("an allowed origin (127.0.0.1) redirecting to another (127.0.0.2): 403 sourceNotAllowed, no request reaches it")
    func redirectOutsideTheAllowlist() async throws {
        try await TestOrigin.with(host: "127.0.0.1") { allowed in
            try await TestOrigin.with(host: "127.0.0.2") { other in
                let jpeg = try Fixtures.landscapeJPEG()
                other.route("/a.jpg", .init(body: jpeg, contentType: "image/jpeg"))
                allowed.route("/a.jpg", .init(body: jpeg, contentType: "image/jpeg"))
                allowed.route("/away.jpg", .redirect(to: other.url("/a.jpg").absoluteString))
                allowed.route("/stay.jpg", .redirect(to: "/a.jpg"))
                var config = ProxyConfig.unsigned
                // The SSRF guard lets both through, so the allowlist alone decides.
                config.allowedNetworks = [try #require(IPNetwork("127.0.0.0/8"))]
                for (hosts, prefixes) in [(["127.0.0.1"], [String]()), ([], ["http://127.0.0.1:\(allowed.port)/"])] {
                    config.allowedHosts = hosts
                    config.allowedSources = prefixes
                    try await ProxyHarness.with(config) { proxy in
                        let refused = try await proxy.get(ProxyHarness.unsafePath(allowed.url("/away.jpg"), "rs:fit:50:50"))
                        #expect(refused.status == 403)
                        #expect(refused.errorCode?.name == "sourceNotAllowed")
                        #expect(refused.errorCode?.code == 2012)
                        let kept = try await proxy.get(ProxyHarness.unsafePath(allowed.url("/stay.jpg"), "rs:fit:50:50"))
                        #expect(kept.status == 200)
                    }
                }
                #expect(other.connectionCount == 0)
                #expect(other.totalRequests == 0)
            }
        }
    }

    @Test("two proxies with different default qualities on one directory: each serves its own bytes and ETags")
    func settingsFingerprintSeparatesResults() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/a.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-fingerprint-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = ProxyHarness.unsafePath(origin.url("/a.jpg"), "rs:fit:300:300", ext: "jpg")
            var answers: [Int: ProxyHarness.Answer] = [:]
            for quality in [90, 30, 90] {
                var config = ProxyConfig.unsigned
                config.defaultQuality = quality
                let proxy = try await ProxyHarness.start(config, directory: directory)
                let answer = try await proxy.get(path)
                #expect(answer.status == 200)
                if let earlier = answers[quality] {
                    // The same settings again: the cached result, byte for byte.
                    #expect(earlier.body == answer.body && earlier.header("ETag") == answer.header("ETag"))
                }
                answers[quality] = answer
                await proxy.beginShutdown()
                try await proxy.stopped()
                try await proxy.client.shutdown()
            }
            let high = try #require(answers[90]), low = try #require(answers[30])
            #expect(high.body != low.body)
            #expect(high.header("ETag") != low.header("ETag"))
            #expect(low.body.count < high.body.count)
            #expect(origin.requestCount("/a.jpg") == 1, "the source cache is shared; only results are keyed by settings")
        }
    }

    @Test("an animated GIF stays animated for a browser: WebP when accepted, else GIF")
    func animationsForBrowsers() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/anim.gif", .init(body: try Fixtures.animatedGIF(), contentType: "image/gif"))  // 4 frames
            try await ProxyHarness.with(.unsigned) { proxy in
                let path = ProxyHarness.unsafePath(origin.url("/anim.gif"), "rs:fit:50:50")
                let chrome = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
                for (accept, format) in [(chrome, ImageFormat.webp), ("image/*", .gif)] {
                    let answer = try await proxy.get(path, headers: [("Accept", accept)])
                    #expect(answer.status == 200)
                    #expect(answer.header("Content-Type") == format.mimeType)
                    #expect(answer.header("Vary") == "Accept")
                    let animation = try #require(try AnimatedImage(data: answer.body), "\(format) answer is not animated")
                    #expect(animation.info.frameCount == 4)
                    #expect(animation.info.canvasSize.width == 50)
                }
            }
        }
    }

    @Test("a client that disconnects mid-render: the render is cancelled, its slot freed, nothing logged above debug")
    func clientDisconnects() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/slow.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg", delay: .seconds(3)))
            origin.route("/fast.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
            var config = ProxyConfig.unsigned
            config.maxConcurrentTransforms = 1
            config.maxQueuedTransforms = 0
            let logs = LogCapture()
            let proxy = try await ProxyHarness.start(config, logger: logs.logger(level: .debug))
            let path = ProxyHarness.unsafePath(origin.url("/slow.jpg"), "rs:fit:40:40")
            let startup = logs.all.count
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: proxy.port).get()
            try await channel.writeAndFlush(ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")).get()
            for _ in 0..<200 where origin.requestCount("/slow.jpg") == 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(proxy.server.slots.usedUnits == 1)
            try await channel.close().get()
            // Well before the origin answers (3 s), the render is gone and its slot free.
            for _ in 0..<100 where proxy.server.slots.usedUnits > 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(proxy.server.slots.usedUnits == 0)
            #expect(proxy.server.renders.runningCount == 0)
            let next = try await proxy.get(ProxyHarness.unsafePath(origin.url("/fast.jpg"), "rs:fit:40:40"))
            #expect(next.status == 200, "the one slot was free again")
            await proxy.shutdown()
            let loud = logs.all.dropFirst(startup).filter { $0.level > .debug }
            #expect(loud.isEmpty, "\(loud.map(\.message))")
            #expect(logs.all.contains { $0.message.contains("client closed") })
        }
    }
}
