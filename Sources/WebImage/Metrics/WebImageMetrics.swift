import Metrics
import Synchronization

/// What WebImage reports through swift-metrics. The library picks no backend: bootstrap
/// `MetricsSystem` (Prometheus, StatsD, OpenTelemetry…) before the first load, because
/// each metric below is created on first use and keeps the backend of that moment.
///
/// | name | kind | dimensions | what |
/// |---|---|---|---|
/// | `webimage_cache_hits_total` | counter | `layer`: `memory`, `disk` | cache queries answered, by layer |
/// | `webimage_cache_misses_total` | counter | | cache queries that found nothing |
/// | `webimage_download_bytes_total` | counter | | body bytes received |
/// | `webimage_downloads_in_flight` | gauge | | transfers running now |
/// | `webimage_download_queue_length` | gauge | | transfers waiting for a slot |
/// | `webimage_download_duration_seconds` | timer | | one transfer, request to last byte |
/// | `webimage_decode_duration_seconds` | timer | | one decode (download or disk hit) |
/// | `webimage_load_failures_total` | counter | `code`: a ``WebImageCodecs/WebImageError/Code`` name | failed manager loads, by error |
/// | `webimage_blocked_loads_total` | counter | | loads refused by the failed-URL block list |
/// | `webimage_download_retries_total` | counter | | transfer attempts after the first (``RetryPolicy``) |
/// | `webimage_forbidden_addresses_total` | counter | | hops refused by the SSRF guard (``AddressPolicy``) |
/// | `webimage_refused_sources_total` | counter | | hops refused by the source allowlist (``SourceAllowlist``), redirects included |
///
/// Counters and timers are updated on whichever thread did the work; the cost is the
/// backend's (an atomic add for most).
public enum WebImageMetrics {
    /// The names above, for dashboards and tests.
    public enum Name {
        public static let cacheHits = "webimage_cache_hits_total"
        public static let cacheMisses = "webimage_cache_misses_total"
        public static let downloadBytes = "webimage_download_bytes_total"
        public static let downloadsInFlight = "webimage_downloads_in_flight"
        public static let downloadQueueLength = "webimage_download_queue_length"
        public static let downloadDuration = "webimage_download_duration_seconds"
        public static let decodeDuration = "webimage_decode_duration_seconds"
        public static let loadFailures = "webimage_load_failures_total"
        public static let blockedLoads = "webimage_blocked_loads_total"
        public static let downloadRetries = "webimage_download_retries_total"
        public static let forbiddenAddresses = "webimage_forbidden_addresses_total"
        public static let refusedSources = "webimage_refused_sources_total"
    }

    package static let memoryHits = Counter(label: Name.cacheHits, dimensions: [("layer", "memory")])
    static let diskHits = Counter(label: Name.cacheHits, dimensions: [("layer", "disk")])
    static let misses = Counter(label: Name.cacheMisses)
    static let downloadBytes = Counter(label: Name.downloadBytes)
    static let downloadsInFlight = Gauge(label: Name.downloadsInFlight)
    static let downloadQueueLength = Gauge(label: Name.downloadQueueLength)
    static let downloadDuration = Timer(label: Name.downloadDuration, preferredDisplayUnit: .seconds)
    static let decodeDuration = Timer(label: Name.decodeDuration, preferredDisplayUnit: .seconds)
    static let blockedLoads = Counter(label: Name.blockedLoads)
    static let downloadRetries = Counter(label: Name.downloadRetries)
    static let forbiddenAddresses = Counter(label: Name.forbiddenAddresses)
    static let refusedSources = Counter(label: Name.refusedSources)
    private static let failures = Mutex<[Int: Counter]>([:])

    /// Counts one failed load under its code's name (a bounded set of labels).
    static func countFailure(_ code: WebImageError.Code) {
        let counter = failures.withLock { counters -> Counter in
            if let counter = counters[code.rawValue] { return counter }
            let counter = Counter(label: Name.loadFailures, dimensions: [("code", code.name)])
            counters[code.rawValue] = counter
            return counter
        }
        counter.increment()
    }

    /// Records the time since `start` in `timer`.
    static func record(_ timer: Timer, since start: ContinuousClock.Instant) {
        let elapsed = (ContinuousClock.now - start).components
        timer.recordNanoseconds(elapsed.seconds &* 1_000_000_000 &+ elapsed.attoseconds / 1_000_000_000)
    }
}
