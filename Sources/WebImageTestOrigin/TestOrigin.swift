import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 (an OS-chosen port) inside the calling process:
/// the one origin of the tests and of `webimage demo`, so neither needs a network;
/// with `start(tls: true)` it speaks HTTPS with a self-signed certificate made for it
/// (``SelfSignedCertificate``), which a verifying client must refuse; with
/// `start(tls: true, http2: true)` it also offers HTTP/2 by ALPN (TestOrigin+HTTP2.swift).
///
/// Tests register routes (a fixed ``Response`` or a handler that sees the request),
/// load `origin.url("/path")`, and read per-path request counts. Responses can be
/// delayed, dripped, sent chunked with pauses, cut off mid-body, declare a wrong
/// Content-Length, answer 304 to a matching validator, require Basic auth, serve byte
/// ranges (206), or fail a number of times before succeeding.
/// Unknown paths get 404; `HEAD` gets the headers without the body. Always
/// `await origin.shutdown()` at the end.
///
/// Threads: connections are served by tasks on NIO's singleton event loop group; route
/// handlers run on those tasks and must not block.
///
/// ```swift
/// let origin = try await TestOrigin.start()
/// origin.route("/a.png", .init(body: pngBytes, contentType: "image/png"))
/// … load origin.url("/a.png") …
/// #expect(origin.requestCount("/a.png") == 1)
/// await origin.shutdown()
/// ```
public final class TestOrigin: Sendable {
    /// A request as the handler sees it.
    public struct Request: Sendable {
        public var method: String
        /// The path without the query.
        public var path: String
        public var query: String?
        /// Header names lowercased; repeated headers joined with ", ".
        public var headers: [String: String]
    }

    /// How the body goes out.
    public enum Delivery: Sendable {
        /// All at once with its Content-Length.
        case whole
        /// In `pieces` chunks of the chunked encoding (no Content-Length), pausing between.
        case chunked(pieces: Int, pause: Duration)
        /// With its Content-Length, `bytes` at a time, pausing between.
        case drip(bytes: Int, every: Duration)
        /// With its full Content-Length, but the connection closes after `bytes` bytes.
        case closeAfter(bytes: Int)
    }

    /// What a route answers.
    public struct Response: Sendable {
        public var status = 200
        public var headers: [(String, String)] = []
        public var body: [UInt8] = []
        public var contentType: String?
        /// Wait before sending anything.
        public var delay: Duration = .zero
        public var delivery = Delivery.whole
        /// Declare this Content-Length instead of the body's; when larger than the body,
        /// the connection closes after the body.
        public var declaredLength: Int?
        /// Sent as `ETag`; a request whose `If-None-Match` equals it gets 304.
        public var etag: String?
        /// Required Basic credentials; other requests get 401.
        public var basicAuth: (user: String, password: String)?
        /// Honour `Range: bytes=N-` (with `If-Range` matching ``etag`` or the
        /// `Last-Modified` header) with a 206 of the rest of the body.
        public var acceptsRanges = false

        public init(
            status: Int = 200, body: [UInt8] = [], contentType: String? = nil, headers: [(String, String)] = [],
            delay: Duration = .zero, delivery: Delivery = .whole
        ) {
            self.status = status
            self.body = body
            self.contentType = contentType
            self.headers = headers
            self.delay = delay
            self.delivery = delivery
        }

        /// A redirect to `location` (absolute or relative).
        public static func redirect(to location: String, status: Int = 302) -> Response {
            Response(status: status, headers: [("Location", location)])
        }

        /// A plain-text status page.
        public static func status(_ status: Int) -> Response {
            Response(status: status, body: Array("status \(status)".utf8), contentType: "text/plain")
        }
    }

    public typealias Handler = @Sendable (Request) -> Response

    struct State {
        var routes: [String: Handler] = [:]
        var counts: [String: Int] = [:]
        var log: [String] = []
        var headers: [String: [[String: String]]] = [:]
        var bytesSent = 0
        var connectionsAccepted = 0
        var connections: [ObjectIdentifier: any Channel] = [:]
        /// Per path, the HTTP version of each request ("HTTP/1.1", "HTTP/2.0").
        var versions: [String: [String]] = [:]
        var http2Connections = 0
        var http2Streams = 0
        var openHTTP2Streams = 0
        var peakHTTP2Streams = 0
    }
    // Internal, not private: TestOrigin+HTTP2.swift serves through them.
    let state = Mutex(State())
    private let serverChannel: any Channel
    let serverTask: Mutex<Task<Void, Never>?> = Mutex(nil)

    /// The port the server listens on.
    public let port: Int
    /// The address it listens on (`127.0.0.1` unless started with another loopback address).
    public let host: String
    /// Whether it speaks HTTPS.
    public let isTLS: Bool
    /// `http://127.0.0.1:<port>`, or `https://…` for a TLS origin.
    public var baseURL: URL {
        let name = host.contains(":") ? "[\(host)]" : host
        return URL(string: "\(isTLS ? "https" : "http")://\(name):\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// Starts a server on 127.0.0.1 with an OS-chosen port; HTTPS with a fresh
    /// self-signed certificate when `tls` is true.
    ///
    /// - Parameters:
    ///   - host: the loopback address to listen on: `127.0.0.1` (default), another
    ///     127.x.y.z, or `::1`. Anything that is not loopback is refused: tests never
    ///     open sockets elsewhere.
    ///   - port: the port; 0 (default) lets the OS choose. Two origins on different
    ///     loopback addresses can share a port, so one host name:port can reach either.
    public static func start(tls: Bool = false, host: String = "127.0.0.1", port: Int = 0) async throws -> TestOrigin {
        guard host == "::1" || host.hasPrefix("127.") else {
            throw ChannelError.operationUnsupported
        }
        let sslContext = tls ? try SelfSignedCertificate.serverContext() : nil
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // A connection reads once `serveAccepted` has wrapped it.
            .childChannelOption(.autoRead, value: false)
            .bind(host: host, port: port) { child in
                child.eventLoop.makeCompletedFuture { () throws -> any Channel in
                    if let sslContext {
                        try child.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    }
                    try child.pipeline.syncOperations.configureHTTPServerPipeline()
                    return child
                }
            }
        let origin = TestOrigin(
            channel: channel.channel, port: channel.channel.localAddress?.port ?? 0, host: host, isTLS: tls)
        let task = Task {
            _ = try? await channel.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await child in inbound {
                        group.addTask { await origin.serveAccepted(child) }
                    }
                }
            }
        }
        origin.serverTask.withLock { $0 = task }
        return origin
    }

    init(channel: any Channel, port: Int, host: String, isTLS: Bool) {
        serverChannel = channel
        self.port = port
        self.host = host
        self.isTLS = isTLS
    }

    /// The URL of `path` on this server.
    public func url(_ path: String) -> URL { baseURL.appendingPathComponent(path.hasPrefix("/") ? String(path.dropFirst()) : path) }

    /// Answers `path` with `response` every time.
    public func route(_ path: String, _ response: Response) {
        route(path) { _ in response }
    }

    /// Answers `path` with whatever `handler` returns for each request.
    public func route(_ path: String, handler: @escaping Handler) {
        state.withLock { $0.routes[path] = handler }
    }

    /// Answers `path` with `failure` for the first `failures` requests, then with `success`
    /// (for example 503 with `Retry-After` twice, then the image).
    public func route(_ path: String, failing failures: Int, with failure: Response = .status(503), then success: Response) {
        let seen = Mutex(0)
        route(path) { _ in
            let n = seen.withLock { n -> Int in
                n += 1
                return n
            }
            return n <= failures ? failure : success
        }
    }

    /// The headers (names lowercased) of every request for `path`, in order.
    public func requestHeaders(_ path: String) -> [[String: String]] { state.withLock { $0.headers[path] ?? [] } }

    /// How many requests arrived for `path`.
    public func requestCount(_ path: String) -> Int { state.withLock { $0.counts[path] ?? 0 } }

    /// Requests received for all paths so far.
    public var totalRequests: Int { state.withLock { $0.counts.values.reduce(0, +) } }

    /// Connections accepted so far (a guard that refuses before connecting leaves it at 0).
    public var connectionCount: Int { state.withLock { $0.connectionsAccepted } }

    /// Body bytes written so far.
    public var bytesSent: Int { state.withLock { $0.bytesSent } }

    /// The HTTP version of every request for `path`, in order: "HTTP/1.1" or "HTTP/2.0".
    public func httpVersions(_ path: String) -> [String] { state.withLock { $0.versions[path] ?? [] } }

    /// HTTP/2 connections negotiated so far (each also counts in ``connectionCount``).
    public var http2ConnectionCount: Int { state.withLock { $0.http2Connections } }

    /// HTTP/2 streams (one per request) opened so far, over all connections.
    public var http2StreamCount: Int { state.withLock { $0.http2Streams } }

    /// The most HTTP/2 streams that were open at once.
    public var peakConcurrentHTTP2Streams: Int { state.withLock { $0.peakHTTP2Streams } }

    /// Every request's path, in order of arrival.
    public var requestLog: [String] { state.withLock { $0.log } }

    /// Stops listening, closes open connections and waits for the server to end.
    public func shutdown() async {
        try? await serverChannel.close()
        for connection in state.withLock({ Array($0.connections.values) }) { try? await connection.close() }
        // Cancelling also ends handlers still sleeping in a delay or drip.
        let task = serverTask.withLock { $0 }
        task?.cancel()
        await task?.value
    }

    // MARK: Serving

    /// Wraps an accepted connection in a `NIOAsyncChannel`, lets it read and serves it.
    ///
    /// Why here and not in the bootstrap's initializer: a connection accepted while the
    /// server shuts down is dropped by the server's stream unread, and a dropped
    /// `NIOAsyncChannel` whose writer was never finished traps the whole test process in
    /// NIO; a dropped raw channel just stays open until its client closes it.
    func serveAccepted(_ child: any Channel) async {
        let wrapped = try? await child.eventLoop.submit {
            let connection = try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                wrappingChannelSynchronously: child)
            try child.syncOptions?.setOption(.autoRead, value: true)
            return connection
        }.get()
        guard let wrapped else {
            try? await child.close()
            return
        }
        await serve(wrapped)
    }

    /// Serves the requests of an HTTP/1.1 connection, or of one HTTP/2 stream converted to
    /// HTTP/1 parts (`isStream`), until it closes.
    func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, isStream: Bool = false) async {
        let id = ObjectIdentifier(connection.channel)
        if !isStream {
            state.withLock { s in
                s.connections[id] = connection.channel
                s.connectionsAccepted += 1
            }
        }
        defer { if !isStream { state.withLock { _ = $0.connections.removeValue(forKey: id) } } }
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            for try await part in inbound {
                switch part {
                case .head(let h): head = h
                case .body: break
                case .end:
                    guard let h = head else { return }
                    head = nil
                    if try await respond(to: h, outbound) == false { return }
                }
            }
        }
    }

    /// Writes one response; `false` when the connection must close afterwards.
    private func respond(
        to head: HTTPRequestHead, _ out: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws -> Bool {
        let parts = head.uri.split(separator: "?", maxSplits: 1).map(String.init)
        let path = parts.first ?? "/"
        var headers: [String: String] = [:]
        for (name, value) in head.headers {
            let key = name.lowercased()
            headers[key] = headers[key].map { $0 + ", " + value } ?? value
        }
        let request = Request(method: "\(head.method)", path: path, query: parts.count > 1 ? parts[1] : nil, headers: headers)
        let handler = state.withLock { s -> Handler? in
            s.counts[path, default: 0] += 1
            s.log.append(path)
            s.headers[path, default: []].append(headers)
            s.versions[path, default: []].append("HTTP/\(head.version.major).\(head.version.minor)")
            return s.routes[path]
        }
        var response = handler?(request) ?? .status(404)
        if response.delay > .zero { try await Task.sleep(for: response.delay) }
        if let auth = response.basicAuth {
            let expected = "Basic " + Data("\(auth.user):\(auth.password)".utf8).base64EncodedString()
            if headers["authorization"] != expected {
                response = .status(401)
                response.headers = [("WWW-Authenticate", "Basic realm=\"test\"")]
            }
        }
        if response.acceptsRanges, response.status == 200 { response = Self.ranged(response, request: headers) }
        if let etag = response.etag {
            if headers["if-none-match"] == etag {
                response = Response(status: 304, headers: [("ETag", etag)])
            } else {
                response.headers.append(("ETag", etag))
            }
        }
        return try await write(response, isHead: head.method == .HEAD, out)
    }

    /// `response` cut to the range the request asks for, when its `If-Range` (if any)
    /// still matches; unchanged otherwise.
    private static func ranged(_ response: Response, request headers: [String: String]) -> Response {
        guard let range = headers["range"], range.hasPrefix("bytes="), range.hasSuffix("-"),
              let start = Int(range.dropFirst(6).dropLast()), start < response.body.count else { return response }
        if let condition = headers["if-range"] {
            let lastModified = response.headers.first { $0.0.lowercased() == "last-modified" }?.1
            guard condition == response.etag || condition == lastModified else { return response }
        }
        var partial = response
        partial.status = 206
        partial.body = Array(response.body[start...])
        partial.headers.append(("Content-Range", "bytes \(start)-\(response.body.count - 1)/\(response.body.count)"))
        if case .closeAfter = response.delivery { partial.delivery = .whole }
        return partial
    }

    private func write(_ r: Response, isHead: Bool, _ out: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws -> Bool {
        var headers = HTTPHeaders(r.headers)
        if let type = r.contentType { headers.add(name: "Content-Type", value: type) }
        let hasBody = r.status != 304 && r.status != 204 && !isHead
        switch r.delivery {
        case .chunked: break
        default:
            if hasBody || (isHead && r.status != 304 && r.status != 204) {
                headers.add(name: "Content-Length", value: "\(r.declaredLength ?? r.body.count)")
            }
        }
        try await out.write(.head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: r.status), headers: headers)))
        guard hasBody else {
            try await out.write(.end(nil))
            return true
        }
        switch r.delivery {
        case .whole:
            if !r.body.isEmpty { try await sendBody(r.body[...], out) }
        case .chunked(let pieces, let pause):
            let size = max(1, (r.body.count + max(1, pieces) - 1) / max(1, pieces))
            try await send(r.body, size: size, pause: pause, out)
        case .drip(let bytes, let every):
            try await send(r.body, size: max(1, bytes), pause: every, out)
        case .closeAfter(let bytes):
            try await sendBody(r.body.prefix(bytes), out)
            try await Task.sleep(for: .milliseconds(50))
            return false
        }
        if let declared = r.declaredLength, declared > r.body.count {
            try await Task.sleep(for: .milliseconds(50))
            return false
        }
        try await out.write(.end(nil))
        return true
    }

    private func send(
        _ body: [UInt8], size: Int, pause: Duration, _ out: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + size)
            try await sendBody(body[offset..<end], out)
            offset = end
            if offset < body.count { try await Task.sleep(for: pause) }
        }
    }

    private func sendBody(_ bytes: ArraySlice<UInt8>, _ out: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws {
        try await out.write(.body(.byteBuffer(ByteBuffer(bytes: bytes))))
        state.withLock { $0.bytesSent += bytes.count }
    }
}
