import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import WebImage
import WebImageCodecs

/// Gets S3 objects for `s3://bucket/key` sources: one signed `GET` (AWS Signature
/// Version 4, ``SigV4Signer``) over AsyncHTTPClient per object, with the bucket lists,
/// the SSRF guard and the size and time limits of every other source.
///
/// - Buckets: denied ones, and ones outside a non-empty allow list, are refused before
///   any request (403, `sourceNotAllowed`).
/// - SSRF guard: the endpoint's host is checked against the proxy's address policy
///   before each request (a loopback or private S3-compatible store must be let through
///   with `--allow-network` or the `IMGPROXY_ALLOW_*_SOURCE_ADDRESSES` variables). The
///   connection is not pinned to the checked address: the host is the operator's
///   endpoint, not the URL's, so no client can make it rebind.
/// - Redirects are never followed: a 3xx other than 304 is refused (502, `tooManyRedirects`),
///   so an endpoint cannot send the signed request elsewhere.
/// - Statuses: 200 and 206 give the object, 304 answers a conditional request, 403 is
///   `sourceAccessDenied` (wrong credentials or no permission), 404 is 404, anything else 502.
///
/// Runs on the calling task; the transfer on AsyncHTTPClient's event loops. Call
/// ``shutdown()`` when done.
final class S3Client: Sendable {
    let settings: S3Settings
    let addresses: AddressPolicy?
    let timeout: TimeInterval
    let maxBytes: Int
    private let http: HTTPClient

    init(settings: S3Settings, addresses: AddressPolicy?, timeout: TimeInterval, maxBytes: Int) {
        self.settings = settings
        self.addresses = addresses
        self.timeout = timeout
        self.maxBytes = maxBytes
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let nanos = Int64(min(max(timeout, 0.01), 3600) * 1_000_000_000)
        configuration.timeout = .init(connect: .nanoseconds(nanos), read: .nanoseconds(nanos))
        configuration.connectionPool.retryConnectionEstablishment = false
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// What a `GET` gave.
    enum Outcome: Sendable {
        /// The object (200), or part of it (206, with `Content-Range`).
        case object(OriginalData, status: Int, contentRange: String?)
        /// 304: the validators sent still match.
        case notModified
    }

    /// Gets `key` of `bucket` (and `versionID`), with an optional `Range` and conditional
    /// headers, which are signed with the rest.
    ///
    /// - Throws: ``ProxyError``: `sourceNotAllowed` for a refused bucket, the SSRF guard's
    ///   `forbiddenAddress`, `sourceAccessDenied`, 404, `tooManyRedirects` for a redirect,
    ///   `responseTooLarge`, `timedOut`, `cannotConnect`, 502 for other statuses.
    func get(bucket: String, key: String, versionID: String? = nil, range: String? = nil,
             ifNoneMatch: String? = nil, ifModifiedSince: String? = nil, now: Date = Date()) async throws(ProxyError) -> Outcome {
        guard settings.allows(bucket: bucket) else {
            throw .bucketNotAllowed
        }
        let target = settings.objectURL(bucket: bucket, key: key, versionID: versionID)
        guard let url = target.url else { throw .badRequest("The S3 bucket or key does not make a URL") }
        try await checkAddress(url)

        var signedHeaders: [(String, String)] = [("Host", target.host)]
        if let range { signedHeaders.append(("Range", range)) }
        if let ifNoneMatch { signedHeaders.append(("If-None-Match", ifNoneMatch)) }
        if let ifModifiedSince { signedHeaders.append(("If-Modified-Since", ifModifiedSince)) }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        // Sent exactly as signed (AsyncHTTPClient adds no second Host header).
        for (name, value) in signedHeaders { request.headers.add(name: name, value: value) }
        if let credentials = settings.credentials {
            let signer = SigV4Signer(accessKeyID: credentials.accessKeyID, secretAccessKey: credentials.secretAccessKey,
                                     sessionToken: credentials.sessionToken, region: settings.region, service: "s3")
            let query = versionID.map { [("versionId", $0)] } ?? []
            let signed = signer.sign(method: "GET", path: target.path, query: query, headers: signedHeaders,
                                     payloadHash: SigV4Signer.unsignedPayload, date: now)
            for (name, value) in signed.headers { request.headers.add(name: name, value: value) }
        }

        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: .nanoseconds(Int64(timeout * 1_000_000_000)))
        } catch {
            throw Self.transportError(error)
        }
        let status = Int(response.status.code)
        switch status {
        case 200, 206:
            if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBytes {
                throw ProxyError(WebImageError(.responseTooLarge, "\(length) bytes"))
            }
            let body: ByteBuffer
            do {
                body = try await response.body.collect(upTo: maxBytes)
            } catch is NIOTooManyBytesError {
                throw ProxyError(WebImageError(.responseTooLarge, "over \(maxBytes) bytes"))
            } catch {
                throw Self.transportError(error)
            }
            let headers = response.headers
            return .object(OriginalData(
                data: Data(buffer: body), etag: headers.first(name: "ETag"), lastModified: headers.first(name: "Last-Modified"),
                cacheControl: headers.first(name: "Cache-Control"), expires: headers.first(name: "Expires")),
                status: status, contentRange: headers.first(name: "Content-Range"))
        case 304:
            return .notModified
        case 300..<400:
            throw ProxyError(WebImageError(.tooManyRedirects, "HTTP \(status)"))
        case 403:
            throw .sourceAccessDenied
        default:
            throw ProxyError(WebImageError(.invalidDownloadStatusCode, "HTTP \(status)", httpStatusCode: status))
        }
    }

    /// The SSRF guard on the endpoint host: allowed by name, else every address it has
    /// must be allowed.
    private func checkAddress(_ url: URL) async throws(ProxyError) {
        guard let addresses, let host = url.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) else { return }
        if addresses.allowsByName(host) { return }
        let found: [IPAddress]
        if let literal = IPAddress(host) {
            found = [literal]
        } else {
            do {
                found = try await addresses.resolver.addresses(for: host, port: url.port ?? (url.scheme == "https" ? 443 : 80))
            } catch {
                throw ProxyError(error)
            }
        }
        guard !found.isEmpty else { throw ProxyError(WebImageError(.cannotFindHost, "no address")) }
        if found.contains(where: { !addresses.permits($0) }) {
            throw ProxyError(WebImageError(.forbiddenAddress, "The S3 endpoint's address is not allowed"))
        }
    }

    private static func transportError(_ error: any Error) -> ProxyError {
        if let error = error as? HTTPClientError,
           [HTTPClientError.deadlineExceeded, .readTimeout, .connectTimeout].contains(error) {
            return ProxyError(WebImageError(.timedOut, "S3 timed out"))
        }
        if Task.isCancelled { return .clientClosedRequest }
        return ProxyError(WebImageError(.cannotConnect, "S3: \(error)"))
    }

    /// Closes the connections.
    func shutdown() async {
        try? await http.shutdown()
    }
}
