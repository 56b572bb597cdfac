import Foundation
import Testing
import WebImageTestOrigin
@testable import WebImageServer

@Suite("URL signing", .timeLimit(.minutes(1)))
struct URLSignerTests {
    /// imgproxy's documented example ("Signing a URL"): key `secret`, salt `hello`.
    @Test func matchesImgproxysDocumentedExample() throws {
        let pair = try #require(URLSigner.KeyPair(hexKey: "736563726574", hexSalt: "68656C6C6F"))
        let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        #expect(URLSigner.signature(of: path, with: pair) == "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8")
        #expect(URLSigner(pairs: [pair]).isValid(signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", for: path))
    }

    /// docs/usage/signing_url.mdx and imgproxy's own vectors: `IMGPROXY_SIGNATURE_SIZE`
    /// keeps the first bytes of the MAC; the plain-source form signs the same way.
    @Test func truncatedSignaturesAndPlainSources() throws {
        let pair = try #require(URLSigner.KeyPair(hexKey: "736563726574", hexSalt: "68656C6C6F"))
        let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        #expect(URLSigner.signature(of: path, with: pair, size: 8) == "oKfUtW34Dvo")
        #expect(URLSigner(pairs: [pair], signatureSize: 8).isValid(signature: "oKfUtW34Dvo", for: path))
        #expect(!URLSigner(pairs: [pair], signatureSize: 8).isValid(signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", for: path))
        #expect(!URLSigner(pairs: [pair]).isValid(signature: "oKfUtW34Dvo", for: path))
        let plain = "/rs:fill:300:400:0/g:sm/plain/http://example.com/images/curiosity.jpg@png"
        #expect(URLSigner.signature(of: plain, with: pair) == "v4il5rmSYrVOW341NliE_MPcqrwWLyWyeHNDz9YGFBs")
        // Several pairs: either signs (imgproxy's test-key/test-salt and test-key2/test-salt2).
        let first = try #require(URLSigner.KeyPair(hexKey: "746573742d6b6579", hexSalt: "746573742d73616c74"))
        let second = try #require(URLSigner.KeyPair(hexKey: "746573742d6b657932", hexSalt: "746573742d73616c7432"))
        let signer = URLSigner(pairs: [first, second])
        #expect(signer.isValid(signature: "oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20", for: "/asd"))
        #expect(signer.isValid(signature: "jYz1UZ7j1BCdSzH3pZhaYf0iuz0vusoOTdqJsUT6WXI", for: "/asd"))
        // A padded signature is refused, as imgproxy refuses it; a trusted string passes as is.
        #expect(!signer.isValid(signature: "oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20=", for: "/asd"))
        #expect(URLSigner(pairs: [first], trusted: ["letmein"]).isValid(signature: "letmein", for: "/anything"))
    }

    /// Without a key imgproxy accepts any signature segment, but not one that looks like an
    /// option (`/rs:fill:4:4/plain/…`: a forgotten signature).
    @Test func withoutAKeyAnySignaturePasses() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/a.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
            try await ProxyHarness.with(.testing) { proxy in
                for signature in ["unsafe", "insecure", "_", "anything"] {
                    #expect(try await proxy.get("/\(signature)/rs:fit:40:40/plain/\(origin.url("/a.jpg"))").status == 200)
                }
                let forgotten = try await proxy.get("/rs:fill:4:4/plain/\(origin.url("/a.jpg"))")
                #expect(forgotten.status == 403 && forgotten.errorCode?.name == "invalidSignature")
            }
        }
    }

    @Test func refusesMalformedKeys() {
        #expect(URLSigner.KeyPair(hexKey: "abc", hexSalt: "00") == nil)
        #expect(URLSigner.KeyPair(hexKey: "zz", hexSalt: "00") == nil)
        #expect(URLSigner.KeyPair(hexKey: "", hexSalt: "00") == nil)
    }

    @Test func signedURLsPassAndForgedOnesAreRefused() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/a.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
            let key: [UInt8] = Array("first key".utf8), salt: [UInt8] = Array("first salt".utf8)
            let key2: [UInt8] = Array("rotated key".utf8), salt2: [UInt8] = Array("rotated salt".utf8)
            var config = ProxyConfig.testing
            config.keys = [
                try #require(URLSigner.KeyPair(hexKey: hex(key), hexSalt: hex(salt))),
                try #require(URLSigner.KeyPair(hexKey: hex(key2), hexSalt: hex(salt2))),
            ]
            try await ProxyHarness.with(config) { proxy in
                let path = ProxyHarness.optionsPath(origin.url("/a.jpg"), "rs:fit:120:120")
                let signed = ProxyHarness.signedPath(path, key: key, salt: salt)
                let ok = try await proxy.get(signed)
                #expect(ok.status == 200)
                #expect(ok.header("Cache-Control") == "max-age=31536000, public, immutable")
                // The second (rotated) pair signs valid URLs too.
                #expect(try await proxy.get(ProxyHarness.signedPath(path, key: key2, salt: salt2)).status == 200)

                // One character of the signature changed, the signature cut short, the path
                // changed under a valid signature, a key nobody configured, and `unsafe`.
                let signature = signed.dropFirst().prefix { $0 != "/" }
                let flipped = (signature.first == "A" ? "B" : "A") + signature.dropFirst()
                let forged = [
                    "/" + flipped + path,
                    "/" + signature.dropLast(4) + path,
                    "/" + signature + ProxyHarness.optionsPath(origin.url("/a.jpg"), "rs:fit:121:120"),
                    ProxyHarness.signedPath(path, key: Array("other".utf8), salt: salt),
                    "/unsafe" + path,
                ]
                for attempt in forged {
                    let answer = try await proxy.get(attempt)
                    #expect(answer.status == 403, "\(attempt)")
                    #expect(answer.errorCode?.name == "invalidSignature")
                }
                #expect(origin.requestCount("/a.jpg") == 1)
            }
        }
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
