import Crypto
import Foundation

/// AWS Signature Version 4 for one request, written from AWS's specification ("Create a
/// signed AWS API request", and the S3 API reference's "Authenticating Requests: Using
/// the Authorization Header"): the canonical request, the string to sign, the signing key
/// derived from the secret by four HMAC-SHA256 steps, and the `Authorization` header.
///
/// The caller gives the canonical URI already encoded (S3 encodes an object key once and
/// never normalises it; ``s3Path(_:)`` does that) and every header it will send that must
/// be signed; the signer adds `x-amz-date`, `x-amz-content-sha256` (S3 needs it) and
/// `x-amz-security-token` for session credentials. Pure computation on the caller's thread.
///
/// Lives in `WebImage` (not the proxy) because both the proxy's `s3://` source and bulk
/// mode's `s3://` output sign with it.
package struct SigV4Signer: Sendable {
    package var accessKeyID: String
    package var secretAccessKey: String
    package var sessionToken: String?
    package var region: String
    package var service: String

    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, region: String, service: String) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.region = region
        self.service = service
    }

    /// The hash S3 accepts for a body it need not check (every GET here).
    package static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// SHA-256 of the empty string.
    package static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// What signing produced: the headers to add, and the steps (for tests and logs).
    package struct Signed: Sendable {
        package var headers: [(String, String)]
        package var canonicalRequest: String
        package var stringToSign: String
        package var signature: String
        package var authorization: String
    }

    /// Signs a request.
    ///
    /// - Parameters:
    ///   - path: the canonical URI, already URI-encoded (`/bucket/my%20key.jpg`).
    ///   - query: name/value pairs, not encoded; a bare name has an empty value.
    ///   - headers: the headers sent that are signed (`Host` included), not encoded.
    ///   - payloadHash: hex SHA-256 of the body, or ``unsignedPayload``; `nil` sends no
    ///     `x-amz-content-sha256` header (services other than S3) and signs the empty hash.
    package func sign(method: String, path: String, query: [(String, String)], headers: [(String, String)],
              payloadHash: String?, date: Date) -> Signed {
        let amzDate = Self.amzDate(date)
        let day = String(amzDate.prefix(8))
        var all = headers
        all.append(("X-Amz-Date", amzDate))
        if let payloadHash { all.append(("X-Amz-Content-Sha256", payloadHash)) }
        if let sessionToken { all.append(("X-Amz-Security-Token", sessionToken)) }

        // Names lower-cased, values trimmed with inner runs of spaces folded, repeated
        // names joined with commas in the order given, then sorted by name.
        var merged: [String: [String]] = [:]
        for (name, value) in all {
            let folded = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            merged[name.lowercased(), default: []].append(folded)
        }
        let names = merged.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(merged[$0, default: []].joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let encodedQuery: [(name: String, value: String)] = query.map {
            (name: Self.encode($0.0, keepSlash: false), value: Self.encode($0.1, keepSlash: false))
        }
        let sortedQuery = encodedQuery.sorted { a, b in a.name != b.name ? a.name < b.name : a.value < b.value }
        let canonicalQuery: String = sortedQuery.map { item in item.name + "=" + item.value }.joined(separator: "&")
        let canonicalPath: String = path.isEmpty ? "/" : path
        let hashLine: String = payloadHash ?? Self.emptyPayloadHash
        let lines: [String] = [method, canonicalPath, canonicalQuery, canonicalHeaders, signedHeaders, hashLine]
        let canonicalRequest = lines.joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Self.hex(SHA256.hash(data: Array(canonicalRequest.utf8)))]
            .joined(separator: "\n")
        let key = signingKey(day: day)
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
        let authorization = "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        var added = [("X-Amz-Date", amzDate)]
        if let payloadHash { added.append(("X-Amz-Content-Sha256", payloadHash)) }
        if let sessionToken { added.append(("X-Amz-Security-Token", sessionToken)) }
        added.append(("Authorization", authorization))
        return Signed(headers: added, canonicalRequest: canonicalRequest, stringToSign: stringToSign,
                      signature: signature, authorization: authorization)
    }

    /// `kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, day), region), service), "aws4_request")`.
    private func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Array(("AWS4" + secretAccessKey).utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        return key
    }

    /// `YYYYMMDD'T'HHMMSS'Z'` in UTC.
    package static func amzDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    /// An S3 object path for the canonical URI and the request line: every byte but
    /// `A–Z a–z 0–9 - _ . ~ /` percent-encoded once, upper-case hex; no normalisation
    /// (`a//b/../c` stays as it is).
    package static func s3Path(_ path: String) -> String { encode(path, keepSlash: true) }

    /// Whether AWS can address `bucket` virtual-hosted (`{bucket}.s3.{region}.amazonaws.com`)
    /// under TLS: 3–63 lower-case letters, digits and hyphens, not starting or ending with
    /// a hyphen. A dot would put the name outside AWS's wildcard certificate, so such a
    /// bucket (and any other name) is addressed path-style. The proxy's `s3://` sources and
    /// bulk's `s3://` output folder both ask this.
    package static func isVirtualHostable(bucket: String) -> Bool {
        (3...63).contains(bucket.count) && bucket.first != "-" && bucket.last != "-"
            && bucket.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
    }

    /// URI encoding of the specification: unreserved characters kept, `/` kept only in paths.
    package static func encode(_ text: String, keepSlash: Bool) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepSlash:
                out.append("/")
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    private static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
