import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOPosix
import Prometheus
import ServiceLifecycle
import WebImageServer
import WebImageTestOrigin

/// A proxy server started in the test process on a free loopback port, with a real
/// HTTP client (AsyncHTTPClient) and a cache directory of its own.
///
/// ```swift
/// try await ProxyHarness.with(config) { proxy in
///     let answer = try await proxy.get(proxy.unsafePath(source: url, options: "rs:fit:100:100"))
/// }
/// ```
final class ProxyHarness: Sendable {
    let server: ImageProxy
    let port: Int
    let client: ProxyClient
    let directory: URL
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    typealias Answer = ProxyClient.Answer

    private init(server: ImageProxy, port: Int, directory: URL, group: ServiceGroup, task: Task<Void, any Error>) {
        self.server = server
        self.port = port
        self.directory = directory
        self.group = group
        self.task = task
        client = ProxyClient(port: port)
    }

    /// Starts a server with `config` (its cache directory replaced by `directory`, by
    /// default a fresh one) logging to `logger` (by default nowhere).
    static func start(
        _ config: ProxyConfig, metrics: PrometheusCollectorRegistry? = nil, directory: URL? = nil, logger: Logger? = nil
    ) async throws -> ProxyHarness {
        var config = config
        let directory = directory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-serve-tests-\(UUID().uuidString)", isDirectory: true)
        config.cacheDirectory = directory
        let logger = logger ?? {
            var quiet = Logger(label: "proxy-test")
            quiet.logLevel = .critical
            return quiet
        }()
        let proxy = ImageProxy(config: config, logger: logger)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = ProxyServer(proxy: proxy, host: "127.0.0.1", port: 0, metrics: metrics, logger: logger)
            .application { port in continuation.yield(port) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return ProxyHarness(server: proxy, port: port, directory: directory, group: group, task: task)
    }

    /// Runs `body` with a started server and always shuts it down.
    static func with<T>(
        _ config: ProxyConfig, metrics: PrometheusCollectorRegistry? = nil, _ body: (ProxyHarness) async throws -> T
    ) async throws -> T {
        let harness = try await start(config, metrics: metrics)
        return try await withCleanup { try await body(harness) } cleanup: { await harness.shutdown() }
    }

    /// Starts a graceful shutdown: no new connections; in-flight requests finish.
    func beginShutdown() async { await group.triggerGracefulShutdown() }

    /// Waits until the server has stopped (after ``beginShutdown()``).
    func stopped() async throws { try await task.value }

    /// Graceful shutdown: in-flight requests finish, caches flush.
    func shutdown() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        try? await client.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// GETs `path` with `headers`.
    func get(_ path: String, headers: [(String, String)] = [], timeout: TimeAmount = .seconds(20)) async throws -> Answer {
        try await client.get(path, headers: headers, timeout: timeout)
    }

    // MARK: URLs

    /// base64url without padding, as imgproxy URL builders write it.
    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// `/unsafe/{options}/{source}[.ext]`.
    static func unsafePath(_ source: URL, _ options: String, ext: String? = nil) -> String {
        "/unsafe" + optionsPath(source, options, ext: ext)
    }

    /// `/{options}/{source}[.ext]`, the part a signature covers.
    static func optionsPath(_ source: URL, _ options: String, ext: String? = nil) -> String {
        let prefix = options.isEmpty ? "" : "/" + options
        return prefix + "/" + base64URL(source.absoluteString) + (ext.map { "." + $0 } ?? "")
    }

    /// A signed path, computed here with swift-crypto directly (independently of the server's signer).
    static func signedPath(_ path: String, key: [UInt8], salt: [UInt8]) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: salt + Array(path.utf8), using: SymmetricKey(data: key))
        let signature = Data(mac).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "/" + signature + path
    }
}
