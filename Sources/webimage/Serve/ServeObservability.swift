import ArgumentParser
import Foundation
import Logging
import Metrics
#if OpenTelemetry
import OTel
import Tracing
#endif
import Prometheus
import ServiceLifecycle
import Synchronization
import WebImageServer

/// The logging, metrics and tracing backends of `webimage serve`.
///
/// Always: logs to stderr, metrics to the Prometheus registry of `/metrics`. With
/// ``TelemetrySettings`` on (the `webimage` tool built with the OpenTelemetry trait, as
/// `make deb` builds it): spans, and as asked metrics and logs, go to swift-otel's OTLP/HTTP
/// exporters too, whose background work is ``services``; stderr's lines carry the trace and
/// span ids. Off, nothing of OpenTelemetry is set up, and the proxy makes no span.
struct ServeObservability {
    let registry = PrometheusCollectorRegistry()
    var services: [any Service] = []
    var tracing = false
    var requestMetrics = false

    /// `name` with every character Prometheus does not allow in a name made `_`.
    static func prometheusName(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") ? $0 : "_" })
    }

    /// Bootstraps the process's backends; call once, before any logger is made.
    ///
    /// - Throws: a `ValidationError` when export is asked of a build without it, or when
    ///   swift-otel refuses its `OTEL_*` settings.
    init(_ settings: TelemetrySettings) throws {
        var prometheus = PrometheusMetricsFactory(registry: registry)
        // Hummingbird's request metrics are named the OpenTelemetry way (http.server.request.duration):
        // a Prometheus name or label name has no dots.
        prometheus.nameAndLabelSanitizer = { name, labels in
            (Self.prometheusName(name), labels.map { (Self.prometheusName($0.0), $0.1) })
        }
        guard settings.isEnabled else {
            MetricsSystem.bootstrap(prometheus)
            return
        }
        #if OpenTelemetry
        // imgproxy's protocol aliases, spelled as the exporter reads them. No other thread
        // reads the environment yet: nothing has started.
        for (name, value) in settings.normalizedProtocols { setenv(name, value, 1) }
        var config = OTel.Configuration.default
        config.serviceName = "webimage"  // OTEL_SERVICE_NAME overrides it
        config.diagnosticLogLevel = .warning  // OTEL_LOG_LEVEL overrides it
        config.traces.enabled = settings.traces
        config.metrics.enabled = settings.metrics
        config.logs.enabled = settings.logs
        // A collector that is down would get a warning per failed batch: the first is enough.
        config.diagnosticLogger = .custom(Logger(label: "webimage.otel") { label in
            OnceLogHandler(base: StreamLogHandler.standardError(label: label))
        })
        do {
            let metadata = settings.traces ? OTel.makeLoggingMetadataProvider() : nil
            let logs: (@Sendable (String) -> any LogHandler)?
            if settings.logs {
                let backend = try OTel.makeLoggingBackend(configuration: config)
                logs = backend.factory
                services.append(backend.service)
            } else {
                logs = nil
            }
            LoggingSystem.bootstrap({ label, provider in
                let stderr = DeferredMetadataLogHandler(
                    base: StreamLogHandler.standardError(label: label, metadataProvider: provider))
                guard let logs else { return stderr }
                return MultiplexLogHandler([stderr, logs(label)])
            }, metadataProvider: metadata)
            if settings.metrics {
                let backend = try OTel.makeMetricsBackend(configuration: config)
                MetricsSystem.bootstrap(MultiplexMetricsHandler(factories: [prometheus, backend.factory]))
                services.append(backend.service)
                requestMetrics = true
            } else {
                MetricsSystem.bootstrap(prometheus)
            }
            if settings.traces {
                let backend = try OTel.makeTracingBackend(configuration: config)
                InstrumentationSystem.bootstrap(backend.factory)
                services.append(backend.service)
                tracing = true
            }
        } catch {
            throw ValidationError("OpenTelemetry: \(error)")
        }
        #else
        throw ValidationError(
            "IMGPROXY_OPEN_TELEMETRY_ENABLE*: this webimage was built without OpenTelemetry export; "
                + "build it with `swift build --traits OpenTelemetry` (make deb does), or unset these variables")
        #endif
    }
}

/// Passes each distinct warning (or worse) once, and every message below warning as
/// the base handler would: swift-otel warns on every failed export.
struct OnceLogHandler: LogHandler {
    var base: any LogHandler
    private let seen = SeenMessages()

    init(base: any LogHandler) { self.base = base }

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }
    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        if event.level >= .warning, !seen.insert(event.message.description) { return }
        base.log(event: event)
    }
}

/// The messages an ``OnceLogHandler`` has passed; bounded by swift-otel's few fixed
/// warning texts (the details are metadata, not part of the message).
final class SeenMessages: Sendable {
    private let messages = Mutex<Set<String>>([])

    /// Whether `message` is new (and now seen).
    func insert(_ message: String) -> Bool { messages.withLock { $0.insert(message).inserted } }
}
