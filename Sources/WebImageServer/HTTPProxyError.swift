import Foundation
import HTTPTypes
import Hummingbird

/// A ``ProxyError`` as Hummingbird throws it: the one place an error becomes a status,
/// headers and body, for the routes (`ProxyRoutes`) and, through
/// `ProxyResponse.error(_:)`, for the answers ``ImageProxy`` builds itself.
///
/// A wrapper rather than a conformance of ``ProxyError`` itself, because
/// `HTTPResponseError.status` is an `HTTPResponse.Status` and ``ProxyError/status`` an
/// `Int` that the proxy and its tests compare.
struct HTTPProxyError: HTTPResponseError {
    let error: ProxyError

    var status: HTTPResponse.Status { HTTPResponse.Status(code: error.status) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(ProxyResponse.error(error))
    }
}

extension ProxyError {
    /// This error, to throw from a route.
    var http: HTTPProxyError { HTTPProxyError(error: self) }

    /// The headers of every error answer: JSON that is never cached, `Retry-After` when
    /// the error gives one (503), and `Allow: GET, HEAD` with a 405 (RFC 9110 §15.5.6
    /// requires it).
    var responseHeaders: [(String, String)] {
        var headers = [("Content-Type", "application/json"), ("Cache-Control", "no-store")]
        if let retryAfter { headers.append(("Retry-After", "\(retryAfter)")) }
        if code == ProxyError.methodNotAllowed.code { headers.append(("Allow", "GET, HEAD")) }
        return headers
    }
}
