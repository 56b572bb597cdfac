import Foundation
import WebImageCodecs

/// An error the proxy answers with: an HTTP status and the JSON body
/// `{"error":{"code":…,"name":…,"message":…}}`.
///
/// Library failures keep ``WebImageError``'s code and name; the proxy's own refusals
/// (signature, options, load) use codes 3000–3099, listed in openapi.yaml. Messages are
/// written here, never copied from the network layer, so no internal address, port or
/// resolver answer reaches a client.
public struct ProxyError: Error, Sendable, Equatable {
    public var status: Int
    public var code: Int
    public var name: String
    public var message: String
    /// Seconds for `Retry-After` (503 only).
    public var retryAfter: Int?

    public init(status: Int, code: Int, name: String, message: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.name = name
        self.message = message
        self.retryAfter = retryAfter
    }

    /// 400: a malformed path or option.
    public static func badRequest(_ message: String) -> ProxyError {
        ProxyError(status: 400, code: 3000, name: "invalidOptions", message: message)
    }

    /// 403: a missing, forged or truncated signature.
    public static func badSignature(_ message: String) -> ProxyError {
        ProxyError(status: 403, code: 3001, name: "invalidSignature", message: message)
    }

    /// 403: a source host outside `--allow-host`.
    public static let sourceNotAllowed = ProxyError(
        status: 403, code: 3002, name: "sourceNotAllowed", message: "The source host is not in the allowlist")

    /// 503: the transform queue is full.
    public static let overloaded = ProxyError(
        status: 503, code: 3003, name: "overloaded", message: "Too many images are being processed; retry later",
        retryAfter: 1)

    /// 404: no such route.
    public static let notFound = ProxyError(status: 404, code: 3004, name: "notFound", message: "No such route")

    /// 504: the whole request took longer than the request timeout.
    public static let requestTimedOut = ProxyError(
        status: 504, code: WebImageError.Code.timedOut.rawValue, name: WebImageError.Code.timedOut.name,
        message: "Processing the image took longer than the request timeout")

    /// The error for a library failure, with a message that names no internal detail.
    public init(_ error: WebImageError) {
        let (status, message) = Self.mapping(error)
        self.init(status: status, code: error.code.rawValue, name: error.code.name, message: message)
    }

    private static func mapping(_ error: WebImageError) -> (Int, String) {
        switch error.code {
        case .invalidDownloadStatusCode:
            let status = error.httpStatusCode ?? 0
            if status == 404 || status == 410 { return (404, "The source was not found (HTTP \(status))") }
            return (502, "The source answered HTTP \(status)")
        case .timedOut: return (504, "The source did not answer in time")
        case .cannotConnect, .cannotFindHost, .connectionLost, .invalidDownloadResponse:
            return (502, "The source could not be fetched")
        case .tooManyRedirects: return (502, "The source redirected too often or to a URL that is not allowed")
        case .forbiddenAddress: return (403, "The source's address is not allowed")
        case .responseTooLarge: return (413, "The source is larger than the server's limit")
        case .imageTooLarge: return (422, "The source has more pixels (or frames) than the server's limit")
        case .badImageData, .invalidDownloadContentType: return (422, "The source is not an image this server decodes")
        case .unsupportedFormat: return (422, "The image format is not supported")
        case .encodingFailed: return (500, "The image could not be encoded")
        case .cancelled: return (503, "The request was cancelled")
        case .invalidURL: return (400, "The source URL is not valid")
        default: return (500, "The image could not be processed")
        }
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
