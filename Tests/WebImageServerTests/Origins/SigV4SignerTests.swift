import Foundation
import Testing
import WebImage
@testable import WebImageServer

/// ``SigV4Signer`` against AWS's published Signature Version 4 test suite
/// (`Tests/Fixtures/sigv4`, see its SOURCE.md) and the S3 API reference's GET Object
/// example: every canonical request, string to sign and `Authorization` header equal
/// AWS's, byte for byte.
@Suite("SigV4 against AWS's published test vectors")
struct SigV4SignerTests {
    static let directory = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/sigv4")
    static let cases: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
        .filter { !$0.hasSuffix(".md") }.sorted()

    /// 2015-08-30T12:36:00Z, the suite's `X-Amz-Date`.
    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)

    /// A `.req` file: method, path (decoded), query pairs (decoded), headers as written.
    struct Request {
        var method: String
        var path: String
        var query: [(String, String)]
        var headers: [(String, String)]
    }

    static func parse(_ text: String) throws -> Request {
        var lines = text.components(separatedBy: "\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        try #require(requestLine.count == 3)
        let target = String(requestLine[1])
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
        var query: [(String, String)] = []
        if parts.count == 2 {
            for item in parts[1].split(separator: "&") {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(pair[0]).removingPercentEncoding ?? String(pair[0])
                let value = pair.count > 1 ? (String(pair[1]).removingPercentEncoding ?? String(pair[1])) : ""
                query.append((name, value))
            }
        }
        var headers: [(String, String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
        }
        return Request(method: String(requestLine[0]), path: path, query: query, headers: headers)
    }

    @Test("AWS's test suite", arguments: cases)
    func suiteCase(_ name: String) throws {
        #expect(Self.cases.count >= 19)
        let folder = Self.directory.appendingPathComponent(name)
        func file(_ ext: String) throws -> String {
            try String(contentsOf: folder.appendingPathComponent("\(name).\(ext)"), encoding: .utf8)
        }
        let request = try Self.parse(try file("req"))
        // The signer adds the date and the session token itself.
        let token = request.headers.first { $0.0.lowercased() == "x-amz-security-token" }?.1
        let headers = request.headers.filter { !["x-amz-date", "x-amz-security-token"].contains($0.0.lowercased()) }
        let signer = SigV4Signer(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                 sessionToken: token, region: "us-east-1", service: "service")
        let signed = signer.sign(method: request.method, path: SigV4Signer.s3Path(request.path), query: request.query,
                                 headers: headers, payloadHash: nil, date: Self.suiteDate)
        #expect(signed.canonicalRequest == (try file("creq")))
        #expect(signed.stringToSign == (try file("sts")))
        #expect(signed.authorization == (try file("authz")))
    }

    /// The S3 API reference, "Authenticating Requests (AWS Signature Version 4)", Example:
    /// GET Object (the first 10 bytes of examplebucket/test.txt), with its published
    /// canonical request, string to sign and signature.
    @Test("S3's GET Object example")
    func s3Example() {
        let signer = SigV4Signer(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                                 sessionToken: nil, region: "us-east-1", service: "s3")
        let signed = signer.sign(
            method: "GET", path: SigV4Signer.s3Path("/test.txt"), query: [],
            headers: [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9")],
            payloadHash: SigV4Signer.emptyPayloadHash, date: Date(timeIntervalSince1970: 1_369_353_600))
        #expect(signed.canonicalRequest == """
            GET
            /test.txt

            host:examplebucket.s3.amazonaws.com
            range:bytes=0-9
            x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            x-amz-date:20130524T000000Z

            host;range;x-amz-content-sha256;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """)
        #expect(signed.stringToSign == """
            AWS4-HMAC-SHA256
            20130524T000000Z
            20130524/us-east-1/s3/aws4_request
            7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
            """)
        #expect(signed.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(signed.headers.contains { $0.0 == "X-Amz-Content-Sha256" && $0.1 == SigV4Signer.emptyPayloadHash })
    }

    /// S3 object paths are encoded once, upper-case hex, `/` kept, nothing normalised; query
    /// values encode `/` and `+`.
    @Test("S3 path and query encoding")
    func encoding() {
        #expect(SigV4Signer.s3Path("/b/my photo+1/ä.jpg") == "/b/my%20photo%2B1/%C3%A4.jpg")
        #expect(SigV4Signer.s3Path("/b/a//x/../c.jpg") == "/b/a//x/../c.jpg")
        #expect(SigV4Signer.encode("3HL4kqtJlcpXroDTDmJ+rmsr/x", keepSlash: false) == "3HL4kqtJlcpXroDTDmJ%2Brmsr%2Fx")
    }
}
