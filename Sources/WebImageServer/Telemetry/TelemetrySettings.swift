import Foundation

/// What `webimage serve` exports over OpenTelemetry, from imgproxy 4's variables:
/// `IMGPROXY_OPEN_TELEMETRY_ENABLE` (request traces), `IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS`
/// and `IMGPROXY_OPEN_TELEMETRY_ENABLE_LOGS`, each `false` by default (Go's booleans, as
/// every `IMGPROXY_*` flag). Where and how is the OpenTelemetry spec's `OTEL_*` variables
/// (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`,
/// `OTEL_EXPORTER_OTLP_TIMEOUT`…), read by the exporter itself.
///
/// The exporter speaks OTLP over HTTP only. imgproxy's default protocol is gRPC; here an
/// unset `OTEL_EXPORTER_OTLP_PROTOCOL` means `http/protobuf` (a collector's port 4318), imgproxy's
/// aliases `http` and `https` mean `http/protobuf` too, and `grpc` is refused at start.
public struct TelemetrySettings: Sendable, Equatable {
    public var traces = false
    public var metrics = false
    public var logs = false
    /// The `OTEL_*_PROTOCOL` variables whose value is an imgproxy alias, with the value the
    /// exporter understands (`http/protobuf`): set them so before the exporter starts.
    public var normalizedProtocols: [String: String] = [:]

    public var isEnabled: Bool { traces || metrics || logs }

    /// The protocol variables, the shared one first.
    static let protocolVariables = [
        "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
        "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL",
    ]

    public init(traces: Bool = false, metrics: Bool = false, logs: Bool = false) {
        self.traces = traces
        self.metrics = metrics
        self.logs = logs
    }

    /// The settings of `environment`.
    ///
    /// - Throws: a malformed boolean, or (with any export on) a protocol other than
    ///   `http/protobuf`, `http/json` or the aliases, naming the variable.
    public init(environment: [String: String]) throws(ProxyConfig.EnvironmentError) {
        try self.init(reader: EnvironmentReader(values: environment))
    }

    init(reader: EnvironmentReader) throws(ProxyConfig.EnvironmentError) {
        traces = try reader.bool("IMGPROXY_OPEN_TELEMETRY_ENABLE") ?? false
        metrics = try reader.bool("IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS") ?? false
        logs = try reader.bool("IMGPROXY_OPEN_TELEMETRY_ENABLE_LOGS") ?? false
        guard isEnabled else { return }
        for name in Self.protocolVariables {
            guard let value = reader.text(name) else { continue }
            switch value.lowercased() {
            case "http/protobuf", "http/json": break
            case "http", "https": normalizedProtocols[name] = "http/protobuf"
            case "grpc":
                throw ProxyConfig.EnvironmentError(
                    variable: name,
                    reason: "grpc is not supported by this build: set \(name)=http/protobuf and point "
                        + "OTEL_EXPORTER_OTLP_ENDPOINT at the collector's OTLP/HTTP port (4318 by default)")
            default:
                throw ProxyConfig.EnvironmentError(
                    variable: name, reason: "\"\(value.prefix(20))\" is not an OTLP protocol; use http/protobuf")
            }
        }
    }
}
