import Foundation
import Testing
import WebImage
import WebImageCodecs
@testable import WebImageServer
import WebImageTestOrigin

/// `s3://bucket/key` sources against a real S3-compatible server on loopback: moto's
/// standalone server (``MotoServer``), with authentication on, buckets `allowed`
/// (versioned) and `denied`, and an IAM user's key. Every request the proxy makes is signed
/// by ``SigV4Signer``; moto checks the signatures as S3 does.
@Suite("s3:// sources against moto", .serialized,
       .enabled(if: MotoServer.isInstalled, "moto is not installed: run `make test-venv` (PyPI moto[server])"))
struct S3SourceTests {
    static let gradient = (try? LocalRoot.png(LocalRoot.gradient)) ?? Data()
    static let red: Data = {
        var bytes = [UInt8]()
        for _ in 0..<(32 * 32) { bytes += [255, 0, 0, 255] }
        return (try? LocalRoot.png(PixelBuffer(width: 32, height: 32, bytes: bytes) ?? PixelBuffer(width: 0, height: 0))) ?? Data()
    }()

    static func settings(_ moto: MotoServer, secret: String? = nil) -> S3Settings {
        var s3 = S3Settings()
        s3.isEnabled = true
        s3.endpoint = URL(string: moto.endpoint)
        s3.credentials = .init(accessKeyID: moto.accessKeyID, secretAccessKey: secret ?? moto.secretAccessKey)
        s3.deniedBuckets = ["denied"]
        return s3
    }

    static func config(_ s3: S3Settings) -> ProxyConfig {
        var config = ProxyConfig.testing
        config.s3 = s3
        // moto listens on 127.0.0.1: let the SSRF guard through for it.
        config.allowedNetworks += [IPNetwork("127.0.0.1/32")].compactMap { $0 }
        return config
    }

    static func path(_ source: String) -> String { "/unsafe/rs:fit:16:16/f:png/" + ProxyHarness.base64URL(source) }

    /// The green channel's rise across the 16×16 answer: large for the gradient, 0 for red.
    static func greenRise(_ answer: ProxyHarness.Answer) throws -> Int {
        let p = try Fixtures.decode(answer.body).pixels
        return Int(p.bytes[(p.width * p.height - 1) * 4 + 1]) - Int(p.bytes[1])
    }

    static func withMoto(_ body: (MotoServer) async throws -> Void) async throws {
        // a.png: gradient, then red as its second version; b.png: red.
        let moto = try await MotoServer.start(objects: [("a.png", gradient), ("b.png", red)])
        try await withCleanup { try await body(moto) } cleanup: { await moto.stop() }
    }

    /// AWS's two URL forms (the S3 user guide, "Virtual hosting of buckets" and "Path-style
    /// requests"): `https://{bucket}.s3.{region}.amazonaws.com/{key}` for a bucket whose
    /// name is a DNS label, `https://s3.{region}.amazonaws.com/{bucket}/{key}` for one with
    /// dots (outside the wildcard certificate); a custom endpoint path-style unless asked.
    @Test("Addressing: virtual-hosted on AWS for a DNS-label bucket, path-style for a dotted one or an endpoint")
    func addressing() throws {
        var aws = S3Settings()
        aws.region = "eu-west-1"
        let hosted = aws.objectURL(bucket: "my-bucket-1", key: "dir/a b.png", versionID: nil)
        #expect(hosted.url?.absoluteString == "https://my-bucket-1.s3.eu-west-1.amazonaws.com/dir/a%20b.png")
        #expect(hosted.host == "my-bucket-1.s3.eu-west-1.amazonaws.com" && hosted.path == "/dir/a%20b.png")
        for bucket in ["my.bucket", "My-Bucket", "-edge", "ab", String(repeating: "a", count: 64)] {
            let path = aws.objectURL(bucket: bucket, key: "k.png", versionID: "v 1")
            #expect(path.host == "s3.eu-west-1.amazonaws.com", "\(bucket)")
            #expect(path.url?.absoluteString == "https://s3.eu-west-1.amazonaws.com/\(bucket)/k.png?versionId=v%201", "\(bucket)")
        }
        #expect(aws.objectURL(bucket: String(repeating: "a", count: 63), key: "k", versionID: nil).host.hasPrefix("aaa"))

        var custom = S3Settings()
        custom.endpoint = S3Settings.endpoint("127.0.0.1:9000")
        #expect(custom.objectURL(bucket: "my-bucket", key: "k", versionID: nil).url?.absoluteString == "http://127.0.0.1:9000/my-bucket/k")
        custom.usesPathStyle = false
        #expect(custom.objectURL(bucket: "my-bucket", key: "k", versionID: nil).url?.absoluteString == "http://my-bucket.127.0.0.1:9000/k")
    }

    @Test("Signed GETs through the proxy: objects, versions, /info, missing keys, denied buckets")
    func proxy() async throws {
        try await Self.withMoto { moto in
            let versions = try #require(moto.versions["a.png"])
            try #require(versions.count == 2)
            try await ProxyHarness.with(Self.config(Self.settings(moto))) { proxy in
                let latest = try await proxy.get(Self.path("s3://allowed/a.png"))
                #expect(latest.status == 200, "\(String(decoding: latest.body.prefix(300), as: UTF8.self))")
                #expect(try Self.greenRise(latest) == 0)   // the second version is red
                let old = try await proxy.get(Self.path("s3://allowed/a.png?\(versions[0])"))
                #expect(old.status == 200)
                #expect(try Self.greenRise(old) > 150)
                let new = try await proxy.get(Self.path("s3://allowed/a.png?\(versions[1])"))
                #expect(try Self.greenRise(new) == 0)

                let info = try await proxy.get("/info/unsafe/" + ProxyHarness.base64URL("s3://allowed/a.png?\(versions[0])"))
                let object = try #require(try JSONSerialization.jsonObject(with: info.body) as? [String: Any])
                #expect(object["size"] as? Int == Self.gradient.count)
                #expect(object["width"] as? Int == 32)

                let missing = try await proxy.get(Self.path("s3://allowed/nothere.png"))
                #expect(missing.status == 404)
                let noBucket = try await proxy.get(Self.path("s3://nobucket/a.png"))
                #expect(noBucket.status == 404)
                let denied = try await proxy.get(Self.path("s3://denied/a.png"))
                #expect(denied.status == 403)
                #expect(denied.errorCode?.name == "sourceNotAllowed")
            }
            // An allow list without `denied`'s neighbour: only listed buckets.
            var only = Self.settings(moto)
            only.deniedBuckets = []
            only.allowedBuckets = ["denied"]
            try await ProxyHarness.with(Self.config(only)) { (proxy: ProxyHarness) async throws in
                #expect(try await proxy.get(Self.path("s3://denied/b.png")).status == 200)
                #expect(try await proxy.get(Self.path("s3://allowed/b.png")).status == 403)
            }
        }
    }

    @Test("A wrong secret, or no credentials, is 403 from S3 and from the proxy")
    func badCredentials() async throws {
        try await Self.withMoto { moto in
            try await ProxyHarness.with(Self.config(Self.settings(moto, secret: "not-the-secret"))) { proxy in
                let answer = try await proxy.get(Self.path("s3://allowed/b.png"))
                #expect(answer.status == 403)
                #expect(answer.errorCode?.name == "sourceAccessDenied")
            }
            var anonymous = Self.settings(moto)
            anonymous.credentials = nil
            try await ProxyHarness.with(Self.config(anonymous)) { (proxy: ProxyHarness) async throws in
                #expect(try await proxy.get(Self.path("s3://allowed/b.png")).status == 403)
            }
        }
    }

    @Test("Conditional and ranged GETs: 304 for an unchanged object, new bytes after a change")
    func conditional() async throws {
        try await Self.withMoto { moto in
            let client = S3Client(settings: Self.settings(moto), addresses: nil, timeout: 10, maxBytes: 1 << 20)
            let checked: Result<Void, any Error>
            do {
                try await Self.conditionalAndRangedGETs(client)
                checked = .success(())
            } catch {
                checked = .failure(error)
            }
            await client.shutdown()
            try checked.get()

            // The proxy revalidates its cached copy: a second rendering of b.png costs a 304.
            try await ProxyHarness.with(Self.config(Self.settings(moto))) { proxy in
                #expect(try await proxy.get("/unsafe/rs:fit:16:16/f:png/" + ProxyHarness.base64URL("s3://allowed/b.png")).status == 200)
                #expect(try await proxy.get("/unsafe/rs:fit:8:8/f:png/" + ProxyHarness.base64URL("s3://allowed/b.png")).status == 200)
                #expect(proxy.server.pipeline.originals.notModifiedCount == 1)
                // After the object changes, the next rendering has the new bytes.
                try await moto.put("b.png", Self.gradient)
                let changed = try await proxy.get("/unsafe/rs:fit:16:16/f:png/q:90/" + ProxyHarness.base64URL("s3://allowed/b.png"))
                #expect(try Self.greenRise(changed) > 150)
                #expect(proxy.server.pipeline.originals.notModifiedCount == 1)
            }
        }
    }

    /// The client's own conditional and ranged GETs of `b.png`.
    static func conditionalAndRangedGETs(_ client: S3Client) async throws {
        guard case .object(let first, let status, _) = try await client.get(bucket: "allowed", key: "b.png") else {
            Issue.record("no object")
            return
        }
        #expect(status == 200)
        #expect(first.data == Self.red)
        let etag = try #require(first.etag)
        guard case .notModified = try await client.get(bucket: "allowed", key: "b.png", ifNoneMatch: etag) else {
            Issue.record("an unchanged object was sent again")
            return
        }
        guard case .object(let part, let partStatus, let range) = try await client.get(bucket: "allowed", key: "b.png", range: "bytes=0-9") else {
            Issue.record("no range")
            return
        }
        #expect(partStatus == 206)
        #expect(part.data == Self.red.prefix(10))
        #expect(range?.hasPrefix("bytes 0-9/") == true)
    }

    @Test("An endpoint that redirects is refused: the signed request is never sent elsewhere")
    func redirect() async throws {
        try await Self.withMoto { moto in
            try await TestOrigin.with(host: "127.0.0.2") { origin in
                origin.route("/allowed/b.png", .redirect(to: moto.endpoint + "/allowed/b.png", status: 307))
                var s3 = Self.settings(moto)
                s3.endpoint = origin.baseURL
                try await ProxyHarness.with(Self.config(s3)) { proxy in
                    let answer = try await proxy.get(Self.path("s3://allowed/b.png"))
                    #expect(answer.status == 502)
                    #expect(answer.errorCode?.name == "tooManyRedirects")
                }
                #expect(origin.requestCount("/allowed/b.png") == 1)
            }
        }
    }

    @Test("An endpoint nobody listens on is a source that cannot be reached: 502 cannotConnect")
    func unreachableEndpoint() async throws {
        var s3 = S3Settings()
        s3.isEnabled = true
        s3.endpoint = URL(string: "http://127.0.0.1:\(try ChildProcess.freePort())")
        try await ProxyHarness.with(Self.config(s3)) { proxy in
            let answer = try await proxy.get(Self.path("s3://allowed/b.png"))
            #expect(answer.status == 502)
            #expect(answer.errorCode?.name == "cannotConnect")
        }
    }

    @Test("The SSRF guard applies to the endpoint unless its address is allowed")
    func guarded() async throws {
        try await Self.withMoto { moto in
            var config = ProxyConfig.testing
            config.s3 = Self.settings(moto)
            try await ProxyHarness.with(config) { proxy in
                let answer = try await proxy.get(Self.path("s3://allowed/b.png"))
                #expect(answer.status == 403)
                #expect(answer.errorCode?.name == "forbiddenAddress")
            }
        }
    }
}
