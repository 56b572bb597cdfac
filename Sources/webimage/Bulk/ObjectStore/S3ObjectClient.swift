import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import WebImage

/// The S3 calls a dataset job makes on its ``S3Destination``: list the objects under the
/// prefix, put an object (one `PUT`, or a multipart upload for a large file:
/// ``S3ObjectClient/upload(file:size:key:)``), delete an object. Each request is signed
/// with ``SigV4Signer`` over its body's SHA-256 and sent with AsyncHTTPClient, redirects
/// refused (a redirect would send the signed request elsewhere), as the proxy's `s3://`
/// source does.
///
/// Runs on the calling task; transfers on AsyncHTTPClient's event loops; spool reads on
/// ``BlockingIOPool/shared``. Call ``shutdown()`` when done.
final class S3ObjectClient: Sendable {
    let destination: S3Destination
    let http: HTTPClient
    /// Seconds for one request, a part's upload included.
    static let requestTimeout: Int64 = 300
    /// The most bytes of an answer read (S3's XML answers are a few hundred kB at most).
    static let maxAnswerBytes = 8 << 20

    init(destination: S3Destination) {
        self.destination = destination
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(120))
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Closes the connections.
    func shutdown() async {
        try? await http.shutdown()
    }

    /// What S3 answered.
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data

        /// `HTTP 403 SignatureDoesNotMatch: The request signature…`.
        var summary: String {
            let fields = S3XMLFields(body, names: ["Code", "Message"])
            return "HTTP \(status)" + (fields.first("Code").map { " \($0)" } ?? "") + (fields.first("Message").map { ": \($0)" } ?? "")
        }
    }

    /// Sends one signed request for `key` (the bucket for `nil`); any status comes back.
    ///
    /// - Throws: ``S3ObjectError`` when no answer came (connection, timeout).
    func send(_ method: HTTPMethod, key: String?, query: [(String, String)] = [], body: ByteBuffer? = nil,
              what: String) async throws(S3ObjectError) -> Answer {
        let address = destination.address(key: key, query: query)
        var hasher = SHA256()
        body?.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        let payloadHash = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let signed = destination.signer.sign(method: method.rawValue, path: address.path, query: query,
                                             headers: [("Host", address.host)], payloadHash: payloadHash, date: Date())
        var request = HTTPClientRequest(url: address.url)
        request.method = method
        // Sent exactly as signed (AsyncHTTPClient adds no second Host header).
        request.headers.add(name: "Host", value: address.host)
        for (name, value) in signed.headers { request.headers.add(name: name, value: value) }
        if let body {
            request.body = .bytes(body)
        } else if method == .PUT || method == .POST {
            // An empty body all the same, so the request says `Content-Length: 0`.
            request.body = .bytes(ByteBuffer())
        }
        do {
            let response = try await http.execute(request, timeout: .seconds(Self.requestTimeout))
            let bytes = try await response.body.collect(upTo: Self.maxAnswerBytes)
            return Answer(status: Int(response.status.code), headers: response.headers, body: Data(bytes.readableBytesView))
        } catch {
            throw S3ObjectError("\(what): no answer from \(address.url): \(error)")
        }
    }

    /// The keys directly under `prefix` (`prefix` ends in `/` or is empty), with `delimiter`
    /// `/` only those one level down; every page of `ListObjectsV2`.
    func list(prefix: String, recursive: Bool) async throws(S3ObjectError) -> [String] {
        var keys: [String] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix)]
            if !recursive { query.append(("delimiter", "/")) }
            if let token { query.append(("continuation-token", token)) }
            let answer = try await send(.GET, key: nil, query: query, what: "listing \(destination.displayURL)/")
            guard answer.status == 200 else {
                throw S3ObjectError("cannot list \(destination.displayURL)/: \(answer.summary)")
            }
            let fields = S3XMLFields(answer.body, names: ["Key", "IsTruncated", "NextContinuationToken"])
            keys += fields.all("Key")
            token = fields.first("IsTruncated") == "true" ? fields.first("NextContinuationToken") : nil
        } while token != nil
        return keys
    }

    /// Deletes `key` (S3 answers 204 whether or not it was there).
    func delete(key: String) async throws(S3ObjectError) {
        let answer = try await send(.DELETE, key: key, what: "deleting s3://\(destination.bucket)/\(key)")
        guard answer.status == 204 || answer.status == 200 else {
            throw S3ObjectError("cannot delete s3://\(destination.bucket)/\(key): \(answer.summary)")
        }
    }

    /// Puts `body` as `key` in one request.
    func put(key: String, body: ByteBuffer) async throws(S3ObjectError) {
        let answer = try await send(.PUT, key: key, body: body, what: "uploading s3://\(destination.bucket)/\(key)")
        guard answer.status == 200 else {
            throw S3ObjectError("cannot upload s3://\(destination.bucket)/\(key): \(answer.summary)")
        }
    }
}

/// An S3 call that failed; the message names the object and what S3 said.
struct S3ObjectError: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
