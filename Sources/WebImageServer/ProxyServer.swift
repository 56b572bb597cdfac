import Foundation
import Hummingbird
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// The HTTP side of `webimage serve`: a Hummingbird 2 application around an
/// ``ImageProxy``.
///
/// Routes: `GET /health`, `GET /metrics` (Prometheus text, when a registry is given),
/// `GET /gallery`, `GET /examples/NAME`, and every other `GET` path as a proxy URL.
/// The application is a swift-service-lifecycle `Service`; ``run(onRunning:)``
/// runs it so that SIGTERM stops accepting connections, lets in-flight requests finish,
/// then flushes the caches (`ProxyShutdownService`).
public struct ProxyServer: Sendable {
    public let proxy: ImageProxy
    public var host: String
    /// 0 lets the system choose; the `onRunning` callback of ``run(onRunning:)`` learns the port.
    public var port: Int
    public var metrics: PrometheusCollectorRegistry?
    public var logger: Logger
    /// Connections idle this long are closed (slow or abandoned clients). Default 60 s.
    public var idleTimeout: Duration = .seconds(60)

    public init(proxy: ImageProxy, host: String, port: Int, metrics: PrometheusCollectorRegistry? = nil, logger: Logger) {
        self.proxy = proxy
        self.host = host
        self.port = port
        self.metrics = metrics
        self.logger = logger
    }

    /// The application, ready to run in a `ServiceGroup`; `onRunning` gets the bound port.
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let responder = ProxyResponder(proxy: proxy, metrics: metrics)
        let idle = TimeAmount.nanoseconds(Int64(idleTimeout.components.seconds) * 1_000_000_000)
        return Application(
            responder: responder,
            server: .http1(configuration: .init(additionalChannelHandlers: [ClientClosureHandler()], idleTimeout: idle)),
            configuration: .init(address: .hostname(host, port: port), serverName: "webimage"),
            services: [ProxyShutdownService(proxy: proxy)],
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Runs until SIGTERM or SIGINT, then shuts down gracefully.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await application(onRunning: onRunning).runService()
    }
}

/// Flushes the proxy's caches and closes its connections once the HTTP server has
/// drained: listed before the server, so the service group stops it after the server.
struct ProxyShutdownService: Service, CustomStringConvertible {
    let proxy: ImageProxy
    var description: String { "ProxyShutdownService" }

    func run() async throws {
        try? await gracefulShutdown()
        await proxy.shutdown()
    }
}
