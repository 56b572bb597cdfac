import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import WebImageTestOrigin

/// A real HTTP client (AsyncHTTPClient) for a proxy on a loopback port.
struct ProxyClient: Sendable {
    let port: Int
    let http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)

    /// One HTTP response, body collected.
    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        /// The JSON error body's `error.code` and `error.name`.
        var errorCode: (code: Int, name: String)? {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                  let error = object["error"] as? [String: Any],
                  let code = error["code"] as? Int, let name = error["name"] as? String else { return nil }
            return (code, name)
        }

        /// The JSON error body's `error.message`.
        var errorMessage: String? {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                  let error = object["error"] as? [String: Any] else { return nil }
            return error["message"] as? String
        }
    }

    /// GETs `path` with `headers`.
    func get(_ path: String, headers: [(String, String)] = [], timeout: TimeAmount = .seconds(20)) async throws -> Answer {
        try await send(.GET, path, headers: headers, timeout: timeout)
    }

    /// Sends `method` to `path` with `headers` (no body).
    func send(
        _ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], timeout: TimeAmount = .seconds(20)
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await http.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 64 << 20)
        return Answer(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: Data(buffer: body))
    }

    func shutdown() async throws { try await http.shutdown() }

    /// Runs `body` with a client of the server on `port` and awaits the client's shutdown
    /// whether `body` returns or throws.
    static func with<T>(port: Int, _ body: (ProxyClient) async throws -> T) async throws -> T {
        let client = ProxyClient(port: port)
        return try await withCleanup { try await body(client) } cleanup: { try? await client.shutdown() }
    }
}
