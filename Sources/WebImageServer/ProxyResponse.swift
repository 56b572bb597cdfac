import Foundation
import WebImageCodecs

/// What the proxy answers, independent of the HTTP server: status, headers and body.
public struct ProxyResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: Data

    public init(status: Int, headers: [(String, String)], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of header `name` (case-insensitive), for tests and logs.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// An image response under `answer`'s rules, or 304 when `ifNoneMatch` names its ETag.
    static func image(_ image: RenderedImage, answer: ResponseRules, ifNoneMatch: String?) -> ProxyResponse {
        var headers: [(String, String)] = [
            ("Cache-Control", answer.cacheControl(sourceCacheControl: image.sourceCacheControl)),
            ("ETag", image.etag),
            ("Last-Modified", HTTPDateFormat.format(image.lastModified)),
        ]
        if let vary = answer.vary { headers.append(("Vary", vary)) }
        if let ifNoneMatch, matches(ifNoneMatch, image.etag) {
            return ProxyResponse(status: 304, headers: headers, body: Data())
        }
        headers.append(("Content-Type", image.format.mimeType))
        headers.append(("Content-Disposition", answer.contentDisposition(format: image.format)))
        return ProxyResponse(status: 200, headers: headers, body: image.data)
    }

    /// An `/info` answer (`application/json`), or 304 when `ifNoneMatch` names its ETag.
    static func info(_ result: InfoResult, cacheControl: String, ifNoneMatch: String?) -> ProxyResponse {
        var headers: [(String, String)] = [
            ("Cache-Control", cacheControl), ("ETag", result.etag), ("Last-Modified", HTTPDateFormat.format(result.lastModified)),
        ]
        if let ifNoneMatch, matches(ifNoneMatch, result.etag) {
            return ProxyResponse(status: 304, headers: headers, body: Data())
        }
        headers.append(("Content-Type", "application/json"))
        return ProxyResponse(status: 200, headers: headers, body: result.json)
    }

    /// Whether an `If-None-Match` list names `etag` (weak comparison, `*` included).
    static func matches(_ list: String, _ etag: String) -> Bool {
        list.split(separator: ",").contains { item in
            let tag = item.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    /// A JSON error response (its headers: `ProxyError.responseHeaders`).
    static func error(_ error: ProxyError) -> ProxyResponse {
        ProxyResponse(status: error.status, headers: error.responseHeaders, body: error.body)
    }
}
