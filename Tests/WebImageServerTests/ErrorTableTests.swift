import Foundation
import Testing
import WebImageCodecs
@testable import WebImageServer

/// One error table: the code, the proxy's documentation (README.md and the DocC article
/// `ImageProxy.md`) and openapi.yaml say the same.
@Suite("The proxy's error table", .timeLimit(.minutes(1)))
struct ErrorTableTests {
    /// README.md followed by the DocC catalog's proxy article, where the tables live.
    static let documentation = ["README.md", "Sources/WebImage/WebImage.docc/ImageProxy.md"].map {
        (try? String(contentsOf: Fixtures.packageRoot.appendingPathComponent($0), encoding: .utf8)) ?? ""
    }.joined(separator: "\n")
    static let openapi = (try? String(contentsOf: Fixtures.packageRoot.appendingPathComponent("openapi.yaml"), encoding: .utf8)) ?? ""

    @Test("every row is in the documentation as `| code | name | status |` and in openapi.yaml")
    func documented() {
        let documentation = Self.documentation, openapi = Self.openapi
        #expect(documentation.contains("## The image proxy") && documentation.contains("# The image proxy\n"), "both documents were read")
        let missingInDocumentation = ProxyError.table.filter { !documentation.contains("| \($0.code) | `\($0.name)` | \($0.status) |") }
        let missingInOpenAPI = ProxyError.table.filter { !openapi.contains("\($0.code) \($0.name) \($0.status)") }
        #expect(missingInDocumentation.map(\.code) == [])
        #expect(missingInOpenAPI.map(\.code) == [])
    }

    @Test("every library code maps to its row; every constructor is a row")
    func mapping() {
        for code in WebImageError.Code.all where code != .blackListed && code != .cacheNotModified && code != .notInCache {
            let error = ProxyError(WebImageError(code, "x", httpStatusCode: 500))
            if code == .cancelled {
                #expect(error == .clientClosedRequest)
                continue
            }
            let row = ProxyError.table.first { $0.code == code.rawValue }
            #expect(row != nil, "\(code) has no row")
            #expect(error.status == row?.status && error.name == code.name, "\(code)")
        }
        for error in [ProxyError.badRequest("x"), .badSignature("x"), .sourceNotAllowed, .overloaded, .notFound,
                      .methodNotAllowed, .clientClosedRequest, .requestTimedOut] {
            #expect(ProxyError.table.contains { $0.code == error.code && $0.name == error.name && $0.status == error.status })
        }
        #expect(ProxyError(WebImageError(.invalidDownloadStatusCode, "x", httpStatusCode: 404)).status == 404)
        #expect(ProxyError(WebImageError(.invalidDownloadOperation, "x")).retryAfter == 1)
        #expect(ProxyError.overloaded.status == 503 && ProxyError.overloaded.retryAfter == 1)
    }
}
