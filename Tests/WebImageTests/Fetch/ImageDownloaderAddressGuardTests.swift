import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// The SSRF guard end to end, against loopback origins only: refusals happen before any
/// connection (the origin's connection count stays 0), redirects are checked hop by hop,
/// and the connection goes to the address that was checked.
@Suite("ImageDownloader: the address guard (SSRF)", .timeLimit(.minutes(1)))
struct ImageDownloaderAddressGuardTests {
    private static func config(_ policy: AddressPolicy?) -> DownloaderConfig {
        LoaderTestKit.config { $0.hopPolicy.addresses = policy }
    }

    @Test("the guard refuses 127.0.0.1, [::1] and localhost before connecting; the URL is not blocked")
    func refusesLoopback() async throws {
        try await LoaderTestKit.withOrigin(Self.config(.blockPrivateAddresses)) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            origin.route("/a.raw", .init(body: bytes))
            let targets = [
                origin.url("/a.raw"),
                try #require(URL(string: "http://[::1]:\(origin.port)/a.raw")),
                try #require(URL(string: "http://localhost:\(origin.port)/a.raw")),
                try #require(URL(string: "http://LocalHost:\(origin.port)/a.raw")),
            ]
            for url in targets {
                let recorder = LoadRecorder()
                recorder.request(downloader, url)
                let error = await recorder.finalError()
                #expect(error?.code == .forbiddenAddress, "\(url)")
                #expect(error?.code.rawValue == 2011)
                #expect(downloader.shouldBlockFailedURL(url, error: try #require(error)) == false)
            }
            #expect(origin.connectionCount == 0)
            #expect(origin.totalRequests == 0)
        }
    }

    @Test("with the policy off, or the target allowlisted, the same loads succeed")
    func allowedWhenOffOrAllowlisted() async throws {
        let allowNetwork = AddressPolicy(allowedNetworks: [try #require(IPNetwork("127.0.0.0/8"))])
        let allowName = AddressPolicy(allowedHosts: ["localhost", "127.0.0.1"])
        for policy in [nil, allowNetwork, allowName] {
            try await LoaderTestKit.withOrigin(Self.config(policy)) { origin, downloader in
                let (bytes, pixels) = LoaderTestKit.rawImage()
                origin.route("/a.raw", .init(body: bytes))
                for url in [origin.url("/a.raw"), try #require(URL(string: "http://localhost:\(origin.port)/a.raw"))] {
                    let response = try await downloader.loadImage(with: url)
                    #expect(response.image?.pixels == pixels)
                }
                #expect(origin.requestCount("/a.raw") == 2)
            }
        }
    }

    @Test("every redirect hop is checked: redirects to 127.0.0.1, [::1] and localhost are refused")
    func redirectHops() async throws {
        // The first hop is allowed by name; the targets are not.
        let policy = AddressPolicy(allowedHosts: ["127.0.0.2"])
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            try await TestOrigin.with(host: "127.0.0.1", port: origin.port) { target in
                let downloader = ImageDownloader(config: Self.config(policy))
                let (bytes, _) = LoaderTestKit.rawImage()
                target.route("/img.raw", .init(body: bytes))
                origin.route("/img.raw", .init(body: bytes))
                let hops = [
                    "http://127.0.0.1:\(origin.port)/img.raw", "http://[::1]:\(origin.port)/img.raw",
                    "http://localhost:\(origin.port)/img.raw", "http://[::ffff:127.0.0.1]:\(origin.port)/img.raw",
                ]
                for (i, hop) in hops.enumerated() {
                    origin.route("/r\(i)", .redirect(to: hop))
                    let recorder = LoadRecorder()
                    recorder.request(downloader, origin.url("/r\(i)"))
                    #expect(await recorder.finalError()?.code == .forbiddenAddress, "\(hop)")
                    #expect(origin.requestCount("/r\(i)") == 1)
                }
                // A redirect within the allowed host is followed.
                origin.route("/ok", .redirect(to: "/img.raw"))
                _ = try await downloader.loadImage(with: origin.url("/ok"))
                #expect(origin.requestCount("/img.raw") == 1)
                #expect(target.connectionCount == 0)
                await downloader.shutdown()
            }
        }
    }

    @Test("the connection goes to the checked address: no second lookup can redirect it")
    func connectsToCheckedAddress() async throws {
        // Two origins share a port on 127.0.0.2 (A) and 127.0.0.1 (B). The system resolves
        // localhost to B; the guard's resolver says A. A load of localhost must reach A.
        try await TestOrigin.with(host: "127.0.0.2") { a in
            try await TestOrigin.with(host: "127.0.0.1", port: a.port) { b in
                let resolver = ScriptedResolver(["localhost": [["127.0.0.2"], ["127.0.0.1"]]])
                let policy = AddressPolicy(allowedNetworks: [try #require(IPNetwork("127.0.0.0/8"))], resolver: resolver)
                let downloader = ImageDownloader(config: Self.config(policy))
                let (bytesA, pixelsA) = LoaderTestKit.rawImage(width: 8, height: 8)
                let (bytesB, _) = LoaderTestKit.rawImage(width: 4, height: 4)
                a.route("/who.raw") { request in
                    // The Host header still names the host, not the address.
                    TestOrigin.Response(status: request.headers["host"] == "localhost:\(a.port)" ? 200 : 400, body: bytesA)
                }
                b.route("/who.raw", .init(body: bytesB))

                let url = try #require(URL(string: "http://localhost:\(a.port)/who.raw"))
                let response = try await downloader.loadImage(with: url)
                #expect(response.image?.pixels == pixelsA)
                #expect(resolver.lookups(of: "localhost") == 1)
                #expect(a.requestCount("/who.raw") == 1)
                #expect(b.connectionCount == 0)
                await downloader.shutdown()
            }
        }
    }

    @Test("a rebinding answer on a redirect hop is refused: each hop resolves and checks again")
    func rebindingOnRedirect() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { a in
            try await TestOrigin.with(host: "127.0.0.1", port: a.port) { b in
                // First lookup: an allowed address; second: a refused one.
                let resolver = ScriptedResolver(["localhost": [["127.0.0.2"], ["127.0.0.1"]]])
                let policy = AddressPolicy(allowedNetworks: [try #require(IPNetwork("127.0.0.2/32"))], resolver: resolver)
                let downloader = ImageDownloader(config: Self.config(policy))
                a.route("/start", .redirect(to: "/img.raw"))
                let (bytes, _) = LoaderTestKit.rawImage()
                b.route("/img.raw", .init(body: bytes))
                a.route("/img.raw", .init(body: bytes))

                let recorder = LoadRecorder()
                recorder.request(downloader, try #require(URL(string: "http://localhost:\(a.port)/start")))
                #expect(await recorder.finalError()?.code == .forbiddenAddress)
                #expect(resolver.lookups(of: "localhost") == 2)
                #expect(a.requestCount("/start") == 1)
                #expect(a.requestCount("/img.raw") == 0)
                #expect(b.connectionCount == 0)
                await downloader.shutdown()
            }
        }
    }

    @Test("pinned clients stay bounded: idle ones beyond the limit are closed")
    func pinnedClientsBounded() async throws {
        try await TestOrigin.with { origin in
            let names = (0..<(DownloadClients.maxPinnedClients + 8)).map { "host\($0).test" }
            let resolver = ScriptedResolver(Dictionary(uniqueKeysWithValues: names.map { ($0, [["127.0.0.1"]]) }))
            let policy = AddressPolicy(allowedNetworks: [try #require(IPNetwork("127.0.0.1/32"))], resolver: resolver)
            let downloader = ImageDownloader(config: Self.config(policy))
            let (bytes, _) = LoaderTestKit.rawImage(width: 4, height: 4)
            origin.route("/p.raw", .init(body: bytes))
            for name in names {
                _ = try await downloader.loadImage(with: try #require(URL(string: "http://\(name):\(origin.port)/p.raw")))
            }
            #expect(origin.requestCount("/p.raw") == names.count)
            #expect(downloader.clients.pinnedCount == DownloadClients.maxPinnedClients)
            await downloader.shutdown()
        }
    }

    @Test("https: a pinned connection still speaks TLS to the host name")
    func pinnedTLS() async throws {
        try await TestOrigin.with(tls: true) { origin in
            let resolver = ScriptedResolver(["localhost": [["127.0.0.1"]]])
            let policy = AddressPolicy(allowedNetworks: [try #require(IPNetwork("127.0.0.1"))], resolver: resolver)
            let downloader = ImageDownloader(config: Self.config(policy))
            let (bytes, pixels) = LoaderTestKit.rawImage()
            origin.route("/tls.raw", .init(body: bytes))
            let url = try #require(URL(string: "https://localhost:\(origin.port)/tls.raw"))
            // The self-signed certificate is refused by a verifying client, pinned or not…
            let refused = LoadRecorder()
            refused.request(downloader, url)
            #expect(await refused.finalError()?.code == .cannotConnect)
            // …and accepted when the caller opts out of verification.
            let response = try await downloader.loadImage(with: url, options: .allowInvalidSSLCertificates)
            #expect(response.image?.pixels == pixels)
            #expect(resolver.lookups(of: "localhost") == 2)
            await downloader.shutdown()
        }
    }
}

/// Which hops a transfer checks without a task of their own. The callback form is used:
/// its transfer checks its first hop itself (an `async` caller checks it on its own task,
/// `FirstHopCheckTests`).
@Suite("ImageDownloader: policy checks start a task only to resolve a name", .timeLimit(.minutes(1)))
struct PolicyCheckTaskTests {
    @Test("an address literal or a host allowed by name starts no task; a host name to resolve does")
    func tasksOnlyForLookups() async throws {
        let resolver = ScriptedResolver(["origin.test": [["127.0.0.1"]]])
        let allowNetwork = AddressPolicy(allowedNetworks: [try #require(IPNetwork("127.0.0.0/8"))], resolver: resolver)
        try await LoaderTestKit.withOrigin(LoaderTestKit.config { $0.hopPolicy.addresses = allowNetwork }) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            origin.route("/a.raw", .init(body: bytes))
            let literal = LoadRecorder()
            literal.request(downloader, origin.url("/a.raw"))
            _ = try await literal.final().get()
            #expect(downloader.policyCheckTasks == 0)
            let name = LoadRecorder()
            name.request(downloader, try #require(URL(string: "http://origin.test:\(origin.port)/a.raw?2")))
            _ = try await name.final().get()
            #expect(downloader.policyCheckTasks == 1)
            #expect(resolver.lookups(of: "origin.test") == 1)
        }
        let allowName = AddressPolicy(allowedHosts: ["localhost"], resolver: resolver)
        try await LoaderTestKit.withOrigin(LoaderTestKit.config { $0.hopPolicy.addresses = allowName }) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            origin.route("/a.raw", .init(body: bytes))
            // Allowed by name: not resolved by the guard; the client connects to localhost as usual.
            let recorder = LoadRecorder()
            recorder.request(downloader, try #require(URL(string: "http://localhost:\(origin.port)/a.raw")))
            _ = try await recorder.final().get()
            #expect(downloader.policyCheckTasks == 0)
            #expect(resolver.lookups(of: "localhost") == 0)
        }
    }
}
