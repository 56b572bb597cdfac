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

    @Test func refusesMalformedKeys() {
        #expect(URLSigner.KeyPair(hexKey: "abc", hexSalt: "00") == nil)
        #expect(URLSigner.KeyPair(hexKey: "zz", hexSalt: "00") == nil)
        #expect(URLSigner.KeyPair(hexKey: "", hexSalt: "00") == nil)
    }

    @Test func signedURLsPassAndForgedOnesAreRefused() async throws {
        let origin = try await TestOrigin.start(host: "127.0.0.2")
        defer { Task { await origin.shutdown() } }
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
            #expect(ok.header("Cache-Control") == "public, max-age=31536000, immutable")
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

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
