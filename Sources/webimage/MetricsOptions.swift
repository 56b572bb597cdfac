import ArgumentParser
import Foundation
import Metrics
import Prometheus
import WebImage
import WebImageServer

/// `--metrics`: the library's swift-metrics (see `WebImageMetrics`) collected by a
/// Prometheus registry and printed, in Prometheus' text format, on stderr when the
/// command ends (stdout stays for `--json`).
struct MetricsOptions: ParsableArguments {
    @Flag(help: "Print WebImage's metrics (Prometheus text format) on stderr when done.")
    var metrics = false

    /// Starts collecting when `--metrics` was given; call before the first load, since
    /// each metric keeps the backend it was created with. Returns the report to run at the end.
    func start() -> MetricsReport? {
        guard metrics else { return nil }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return MetricsReport(registry: registry)
    }
}

/// Prints what a registry collected, and what the codecs counted (`CodecMetrics`).
struct MetricsReport {
    let registry: PrometheusCollectorRegistry

    func print() {
        var text: [UInt8] = []
        registry.emit(into: &text)
        text += Array(CodecMetrics.prometheusText.utf8)
        FileHandle.standardError.write(Data(text))
    }
}
