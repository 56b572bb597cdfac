import Foundation
import WebImageCodecs

/// An error the proxy answers with: an HTTP status and the JSON body
/// `{"error":{"code":…,"name":…,"message":…}}`.
///
/// ``table`` is the one list of codes, names and statuses; the proxy article of the DocC
/// catalog (`ImageProxy.md`) and openapi.yaml
/// repeat it and a test holds them to it. Library failures keep ``WebImageCodecs/WebImageError``'s code
/// and name; the proxy's own refusals use codes 3000–3099. Statuses follow imgproxy where
/// it defines one, except two deliberate choices: a source outside the allowlist is 403
/// (imgproxy: 404), and a full queue or memory budget is 503 with `Retry-After`
/// (imgproxy: 429), because the client did nothing wrong. Messages are written here,
/// never copied from the network layer, so no internal address, port or resolver answer
/// reaches a client.
public struct ProxyError: Error, Sendable, Equatable {
    public var status: Int
    public var code: Int
    public var name: String
    public var message: String
    /// Seconds for `Retry-After` (503 only).
    public var retryAfter: Int?
    /// The library's own words (the address refused, the socket's or resolver's reason):
    /// for the server's log only, never sent to a client. Not part of equality.
    public var logDetail: String?

    public static func == (a: ProxyError, b: ProxyError) -> Bool {
        a.status == b.status && a.code == b.code && a.name == b.name && a.message == b.message && a.retryAfter == b.retryAfter
    }

    public init(status: Int, code: Int, name: String, message: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.name = name
        self.message = message
        self.retryAfter = retryAfter
    }

    /// One row of the error table.
    public struct Row: Sendable, Hashable {
        public var code: Int
        public var name: String
        public var status: Int
        /// What it means, as the proxy article (`ImageProxy.md`) says it.
        public var meaning: String
    }

    /// Every code the proxy answers with, in code order. A library code whose status
    /// depends on the source's own status (2001) lists its usual one here; see ``init(_:)``.
    public static let table: [Row] = [
        Row(code: 1000, name: "invalidURL", status: 400, meaning: "the source URL is not valid"),
        Row(code: 1001, name: "badImageData", status: 422, meaning: "the source is not an image this server decodes"),
        Row(code: 1004, name: "imageTooLarge", status: 422, meaning: "more source or output pixels, or frames, than allowed"),
        Row(code: 1005, name: "unsupportedFormat", status: 422, meaning: "no decoder or encoder for the format"),
        Row(code: 1006, name: "encodingFailed", status: 500, meaning: "the encoder failed"),
        Row(code: 1007, name: "cacheIOFailed", status: 500, meaning: "the cache could not be read or written"),
        Row(code: 2000, name: "invalidDownloadOperation", status: 503, meaning: "the server is shutting down (Retry-After)"),
        Row(code: 2001, name: "invalidDownloadStatusCode", status: 502,
            meaning: "the source answered an error status (404 and 410 are passed on as 404)"),
        Row(code: 2003, name: "invalidDownloadResponse", status: 502, meaning: "the source's response was cut short or malformed"),
        Row(code: 2004, name: "invalidDownloadContentType", status: 422, meaning: "never sent by `serve`: sources are recognised by their bytes, not their Content-Type (as imgproxy does), so a body that is no image is 1001"),
        Row(code: 2005, name: "timedOut", status: 504, meaning: "the source, or the whole request, took longer than the timeout"),
        Row(code: 2006, name: "cannotConnect", status: 502, meaning: "no connection to the source"),
        Row(code: 2007, name: "cannotFindHost", status: 502, meaning: "the source's host name does not resolve"),
        Row(code: 2008, name: "responseTooLarge", status: 422, meaning: "the source has more bytes than allowed"),
        Row(code: 2009, name: "tooManyRedirects", status: 502,
            meaning: "too many redirects, a loop, a scheme change, or any redirect from an S3 endpoint"),
        Row(code: 2010, name: "connectionLost", status: 502, meaning: "the source closed the connection"),
        Row(code: 2011, name: "forbiddenAddress", status: 403, meaning: "the source (or a redirect) resolves to a private address"),
        Row(code: 2012, name: "sourceNotAllowed", status: 403, meaning: "the source (or a redirect) is outside the allowlist"),
        Row(code: 3000, name: "invalidOptions", status: 400, meaning: "a malformed path, option, preset or source"),
        Row(code: 3001, name: "invalidSignature", status: 403, meaning: "a missing, forged or truncated signature"),
        Row(code: 3003, name: "overloaded", status: 503, meaning: "the transform queue or memory budget is full (Retry-After)"),
        Row(code: 3004, name: "notFound", status: 404, meaning: "no such route"),
        Row(code: 3005, name: "methodNotAllowed", status: 405, meaning: "only GET and HEAD"),
        Row(code: 3006, name: "clientClosedRequest", status: 499,
            meaning: "the client went away; never sent, logged at debug level only"),
        Row(code: 3007, name: "expired", status: 404, meaning: "the URL's `expires` time has passed"),
        Row(code: 3008, name: "securityOptionNotAllowed", status: 403,
            meaning: "a security option in a URL of a server that does not allow them"),
        Row(code: 3009, name: "sourceForbidden", status: 403,
            meaning: "a `local://` path that leaves the root (`..`, a symlink) or is not a regular file"),
        Row(code: 3010, name: "sourceAccessDenied", status: 403,
            meaning: "the S3 store refused the server's credentials or permissions"),
    ]

    private static func row(_ code: Int) -> Row? { table.first { $0.code == code } }

    private init(row code: Int, message: String, retryAfter: Int? = nil) {
        // Every code used below is in the table (a test checks each constructor).
        let row = Self.row(code) ?? Row(code: code, name: "internalError", status: 500, meaning: "")
        self.init(status: row.status, code: row.code, name: row.name, message: message, retryAfter: retryAfter)
    }

    /// 400: a malformed path or option.
    public static func badRequest(_ message: String) -> ProxyError { ProxyError(row: 3000, message: message) }

    /// 403: a missing, forged or truncated signature.
    public static func badSignature(_ message: String) -> ProxyError { ProxyError(row: 3001, message: message) }

    /// 403: a source (or a redirect hop) outside the allowlist.
    public static let sourceNotAllowed = ProxyError(row: 2012, message: "The source is not in the allowlist")

    /// 403: an S3 bucket the server does not serve (`IMGPROXY_S3_ALLOWED_BUCKETS`, `…_DENIED_BUCKETS`).
    public static let bucketNotAllowed = ProxyError(row: 2012, message: "The bucket is not served by this server")

    /// 403: a `local://` path outside the root, or not a regular file.
    public static func sourceForbidden(_ message: String) -> ProxyError { ProxyError(row: 3009, message: message) }

    /// 403: the S3 store answered 403 (a wrong secret, an unknown key, no permission).
    public static let sourceAccessDenied = ProxyError(
        row: 3010, message: "The S3 store refused access to the object (credentials or permissions)")

    /// 503: the transform queue or the memory budget is full.
    public static let overloaded = ProxyError(
        row: 3003, message: "Too many images are being processed; retry later", retryAfter: 1)

    /// 404: no such route.
    public static let notFound = ProxyError(row: 3004, message: "No such route")

    /// 405: a method other than GET and HEAD.
    public static let methodNotAllowed = ProxyError(row: 3005, message: "Only GET and HEAD")

    /// 499: the client closed the connection; nothing is sent.
    public static let clientClosedRequest = ProxyError(row: 3006, message: "The client closed the request")

    /// 404: the URL's `expires` time has passed (as imgproxy answers it).
    public static let expired = ProxyError(row: 3007, message: "The URL has expired")

    /// 403: a security option (`max_src_resolution`…) on a server that does not allow them.
    public static func securityOptionNotAllowed(_ option: String) -> ProxyError {
        ProxyError(row: 3008, message: "\(option.prefix(40)) is a security option, which this server does not allow in URLs")
    }

    /// 504: the whole request took longer than the request timeout.
    public static let requestTimedOut = ProxyError(row: 2005, message: "Processing the image took longer than the request timeout")

    /// The error for a library failure, with a message that names no internal detail.
    public init(_ error: WebImageError) {
        let message: String
        var status: Int?
        var retryAfter: Int?
        switch error.code {
        case .invalidDownloadStatusCode:
            let source = error.httpStatusCode ?? 0
            if source == 404 || source == 410 {
                status = 404
                message = "The source was not found (HTTP \(source))"
            } else {
                message = "The source answered HTTP \(source)"
            }
        case .timedOut: message = "The source did not answer in time"
        case .cannotConnect, .connectionLost, .invalidDownloadResponse: message = "The source could not be fetched"
        case .cannotFindHost: message = "The source's host name does not resolve"
        case .tooManyRedirects: message = "The source redirected too often or to a URL that is not allowed"
        case .forbiddenAddress:
            message = "The source's address is not allowed (loopback, private or link-local); a server allows such "
                + "sources with IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES, IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES, "
                + "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES or --allow-private-addresses"
        case .sourceNotAllowed: message = "The source is not in the allowlist"
        case .responseTooLarge: message = "The source is larger than the server's limit"
        case .imageTooLarge: message = "The image has more pixels (or frames) than the server's limit"
        case .badImageData, .invalidDownloadContentType: message = "The source is not an image this server decodes"
        case .unsupportedFormat: message = "The image format is not supported"
        case .encodingFailed: message = "The image could not be encoded"
        case .cacheIOFailed: message = "The cache could not be read or written"
        case .invalidURL: message = "The source URL is not valid"
        case .invalidDownloadOperation:
            message = "The server is shutting down; retry later"
            retryAfter = 1
        case .cancelled:
            self = .clientClosedRequest
            return
        default:
            self.init(status: 500, code: error.code.rawValue, name: error.code.name, message: "The image could not be processed")
            return
        }
        self.init(row: error.code.rawValue, message: message, retryAfter: retryAfter)
        if let status { self.status = status }
        logDetail = error.message
    }

    /// The JSON body.
    public var body: Data {
        struct Body: Encodable {
            struct Inner: Encodable {
                var code: Int
                var name: String
                var message: String
            }
            var error: Inner
        }
        // Encoding plain strings and integers cannot fail.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(Body(error: .init(code: code, name: name, message: message)))) ?? Data()
    }
}
