import Foundation
import Testing
import WebImage
import WebImageTestOrigin
@testable import WebImageServer

/// Hostile or broken sources: each gets its documented status and a JSON error, and the
/// server stays up. Origins listen on 127.0.0.2, the one address the tests' SSRF guard lets
/// through; every other address stays refused.
@Suite("Bad sources", .timeLimit(.minutes(1)))
struct BadSourceTests {
    @Test func eachFailureHasItsStatus() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            try await TestOrigin.with(host: "127.0.0.1") { loopback in
                let jpeg = try Fixtures.landscapeJPEG()
                loopback.route("/secret.jpg", .init(body: jpeg, contentType: "image/jpeg"))
                origin.route("/page.html", .init(body: Array("<html><body>hello</body></html>".utf8), contentType: "text/html"))
                origin.route("/mislabelled.jpg", .init(body: jpeg, contentType: "text/html"))
                origin.route("/bomb.png", .init(body: Fixtures.pngBomb(), contentType: "image/png"))
                var huge = TestOrigin.Response(body: Array(jpeg.prefix(1000)), contentType: "image/jpeg")
                huge.declaredLength = 1_000_000_000
                origin.route("/huge.jpg", huge)
                origin.route("/gone.jpg", .status(404))
                origin.route("/broken.jpg", .status(500))
                origin.route("/to-loopback.jpg", .redirect(to: loopback.url("/secret.jpg").absoluteString))
                origin.route("/to-v6.jpg", .redirect(to: "http://[::1]:\(loopback.port)/secret.jpg"))

                var config = ProxyConfig.unsigned
                config.maxSourcePixels = 10_000_000
                try await ProxyHarness.with(config) { proxy in
                    let cases: [(String, Int, String)] = [
                        ("/page.html", 422, "badImageData"),
                        ("/bomb.png", 422, "imageTooLarge"),
                        ("/huge.jpg", 422, "responseTooLarge"),
                        ("/gone.jpg", 404, "invalidDownloadStatusCode"),
                        ("/broken.jpg", 502, "invalidDownloadStatusCode"),
                        ("/to-loopback.jpg", 403, "forbiddenAddress"),
                        ("/to-v6.jpg", 403, "forbiddenAddress"),
                    ]
                    for (path, status, name) in cases {
                        let answer = try await proxy.get(ProxyHarness.unsafePath(origin.url(path), "rs:fit:100:100"))
                        #expect(answer.status == status, "\(path)")
                        #expect(answer.errorCode?.name == name, "\(path)")
                        #expect(answer.header("Content-Type") == "application/json")
                        // Nothing about the internal network in the message: no address, no port.
                        let text = String(decoding: answer.body, as: UTF8.self)
                        #expect(!text.contains("127.0.0") && !text.contains("::1") && !text.contains("\(loopback.port)"), "\(text)")
                    }
                    // Bodies are sniffed, not judged by Content-Type: error row 2004 says it is never sent.
                    let mislabelled = try await proxy.get(ProxyHarness.unsafePath(origin.url("/mislabelled.jpg"), "rs:fit:100:100"))
                    #expect(mislabelled.status == 200 && mislabelled.header("Content-Type") == "image/jpeg")
                    #expect(ProxyError.table.first { $0.code == 2004 }?.meaning.hasPrefix("never sent") == true)
                    // The guard refused the hops before any connection: the loopback origin saw nothing.
                    #expect(loopback.totalRequests == 0)
                    // A loopback source named directly is refused the same way.
                    let direct = try await proxy.get(ProxyHarness.unsafePath(loopback.url("/secret.jpg"), "rs:fit:100:100"))
                    #expect(direct.status == 403)
                    #expect(loopback.totalRequests == 0)
                    #expect(try await proxy.get("/health").status == 200)
                }
            }
        }
    }

    /// Issue #50 item 6: the first wall anyone trying a local origin hits said neither how
    /// to open it nor, in the log, what was refused.
    @Test func aRefusedAddressNamesTheSettingsAndIsLogged() async throws {
        let loopback = try await TestOrigin.start(host: "127.0.0.1")
        loopback.route("/secret.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
        let logs = LogCapture()
        let proxy = try await ProxyHarness.start(.unsigned, logger: logs.logger(level: .info))
        // A host name, not an address literal: the guard checks what it resolves to.
        let source = try #require(URL(string: "http://localhost:\(loopback.port)/secret.jpg"))
        let answer = try await proxy.get(ProxyHarness.unsafePath(source, "rs:fit:100:100"))
        let local = try await proxy.get("/unsafe/plain/local:///a.jpg")
        // Nothing listens on port 1 of the tests' allowed address: the log says why it failed.
        let refused = try await proxy.get("/unsafe/plain/http://127.0.0.2:1/a.jpg")
        await proxy.shutdown()
        await loopback.shutdown()

        #expect(answer.status == 403 && answer.errorCode?.name == "forbiddenAddress")
        let message = answer.errorMessage ?? ""
        for setting in ["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES", "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES", "--allow-private-addresses"] {
            #expect(message.contains(setting), "\(message)")
        }
        #expect(!message.contains("127.0.0.1") && !message.contains("::1"), "no address reaches the client: \(message)")
        let line = logs.all.first { $0.message.hasPrefix("forbiddenAddress") }
        #expect(line?.level == .notice, "\(logs.all)")
        let reason = line?.metadata["reason"] ?? ""
        #expect(reason.contains("loopback") && (reason.contains("127.0.0.1") || reason.contains("::1")), "\(reason)")
        #expect(loopback.totalRequests == 0)
        #expect(local.status == 400 && local.errorMessage?.contains("--local-root") == true, "\(local.errorMessage ?? "")")
        #expect(refused.status == 502 && refused.errorCode?.name == "cannotConnect")
        let failure = logs.all.first { $0.message.hasPrefix("cannotConnect") }
        #expect(failure?.level == .warning && failure?.metadata["reason"]?.contains("127.0.0.2") == true, "\(logs.all)")
    }

    /// Other internal ranges are checked on the guard itself: no packet goes to them.
    @Test func theGuardRefusesEveryInternalRange() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-serve-guard-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = ProxyConfig.testing
        config.cacheDirectory = directory
        let proxy = ImageProxy(config: config)
        let policy = try #require(proxy.downloader.config.hopPolicy.addresses)
        for text in ["10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "127.0.0.1", "0.0.0.0", "100.64.0.1",
                     "::1", "fe80::1", "fc00::1", "::ffff:10.0.0.1", "224.0.0.1"] {
            #expect(!policy.permits(try #require(IPAddress(text))), "\(text)")
        }
        #expect(policy.permits(try #require(IPAddress("127.0.0.2"))))  // the tests' --allow-network
        #expect(policy.permits(try #require(IPAddress("93.184.215.14"))))
        var open = config
        open.allowsPrivateAddresses = true
        #expect(ImageProxy(config: open).downloader.config.hopPolicy.addresses == nil)
    }

    @Test func aSlowSourceTimesOut() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/drip.jpg", .init(
                body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg", delivery: .drip(bytes: 64, every: .milliseconds(50))))
            var config = ProxyConfig.unsigned
            config.requestTimeout = 1
            try await ProxyHarness.with(config) { proxy in
                let answer = try await proxy.get(ProxyHarness.unsafePath(origin.url("/drip.jpg"), "rs:fit:100:100"))
                #expect(answer.status == 504)
                #expect(answer.errorCode?.name == "timedOut")
                #expect(try await proxy.get("/health").status == 200)
            }
        }
    }

    @Test func theHostAllowlistIsEnforced() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/a.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
            var config = ProxyConfig.unsigned
            config.allowedHosts = ["images.example"]
            try await ProxyHarness.with(config) { proxy in
                let answer = try await proxy.get(ProxyHarness.unsafePath(origin.url("/a.jpg"), "rs:fit:100:100"))
                #expect(answer.status == 403)
                #expect(answer.errorCode?.name == "sourceNotAllowed")
                #expect(origin.totalRequests == 0)
            }
            config.allowedHosts = ["127.0.0.2"]
            try await ProxyHarness.with(config) { proxy in
                let answer = try await proxy.get(ProxyHarness.unsafePath(origin.url("/a.jpg"), "rs:fit:100:100"))
                #expect(answer.status == 200)
            }
        }
    }

    @Test func malformedURLsGet400OverHTTP() async throws {
        try await ProxyHarness.with(.unsigned) { proxy in
            let source = ProxyHarness.base64URL("http://127.0.0.2/a.jpg")
            for path in ["/unsafe/rs:fit:100000:1/\(source)", "/unsafe/%zz/\(source)", "/unsafe/rs:fit:1:1/!!!", "/unsafe/oops:1/\(source)"] {
                let answer = try await proxy.get(path)
                #expect(answer.status == 400, "\(path)")
                #expect(answer.errorCode?.code == 3000)
            }
        }
    }
}
