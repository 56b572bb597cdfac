import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// The HTTP side of `webimage serve`: a Hummingbird 2 application around an
/// ``ImageProxy``.
///
/// Routes, on Hummingbird's `Router`: `GET /health`, `GET /metrics` (Prometheus text, when
/// a registry is given), `GET /gallery`, `GET /examples/NAME`, and every other path as a
/// proxy URL (`{prefix}/{signature}/…` or `{prefix}/info/…`; 404 outside the path prefix,
/// and for `/` and `/favicon.ico`). HEAD answers as GET without the body; any other method
/// is 405 with `Allow: GET, HEAD`. Errors are ``ProxyError``'s JSON bodies. Each
/// connection's requests run on one task that prefers the connection's event loop as its
/// executor (a memory-cache hit never leaves that loop); when the client goes away, that
/// task is cancelled.
///
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
    /// Hummingbird's `MetricsMiddleware` on every route: request counts and durations by
    /// route, method and status, to whatever metrics backend is bootstrapped (the tool turns
    /// it on with OpenTelemetry metrics export). Default off.
    public var requestMetrics = false
    /// Services run beside the server (an exporter's background work): started first and
    /// stopped last, after the server has drained and the caches are flushed.
    public var services: [any Service] = []

    public init(proxy: ImageProxy, host: String, port: Int, metrics: PrometheusCollectorRegistry? = nil, logger: Logger) {
        self.proxy = proxy
        self.host = host
        self.port = port
        self.metrics = metrics
        self.logger = logger
    }

    /// The application, ready to run in a `ServiceGroup`; `onRunning` gets the bound port.
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = ProxyRoutes(proxy: proxy, metrics: metrics, requestMetrics: requestMetrics).router()
        let idle = TimeAmount.nanoseconds(Int64(idleTimeout.components.seconds) * 1_000_000_000)
        let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [ClientClosureHandler()], idleTimeout: idle)
        return Application(
            router: router,
            server: HTTPServerBuilder { responder in
                ProxyHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: http1))
            },
            configuration: .init(address: .hostname(host, port: port), serverName: "webimage"),
            services: services + [ProxyShutdownService(proxy: proxy)],
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
