import Foundation

/// One numeric setting of `webimage serve`, declared once: its flag, its imgproxy
/// environment variable, the values it takes, its default and what it does.
///
/// ``all`` is the table. The command line checks its flags against ``range``, the
/// environment reader its variables, ``ProxyConfig`` clamps to it, and the proxy article's
/// "Limits" table is checked against it by a test, so a range is written only here.
/// Where imgproxy gives a variable a meaning of its own (`0` is "unlimited" for
/// `IMGPROXY_REQUESTS_QUEUE_SIZE` and `IMGPROXY_MAX_SRC_FILE_SIZE`; megapixels for
/// `IMGPROXY_MAX_SRC_RESOLUTION`), the environment reader says so beside the read.
public struct ServeSetting: Sendable, Hashable {
    /// The command-line flag, e.g. `--max-queue`.
    public let flag: String
    /// imgproxy's environment variable; `nil` for a flag of ours only.
    public let variable: String?
    /// The values accepted; anything else stops the start, naming the flag or variable.
    public let range: ClosedRange<Double>
    /// Whether only whole numbers are accepted.
    public let isInteger: Bool
    /// What a value counts, as an error message names it ("a byte count").
    public let unit: String
    /// The default, as the documentation gives it.
    public let defaultText: String
    /// What the setting does, in one line.
    public let summary: String

    /// The range as `--help` and the documentation write it (`1…32`).
    public var rangeText: String { "\(Self.format(range.lowerBound))…\(Self.format(range.upperBound))" }

    /// What is accepted, as messages say it: "a byte count from 1024 to 4294967296".
    public var expectation: String {
        "\(unit) from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))"
    }

    /// Whether `value` is accepted: in ``range``, and whole when ``isInteger``.
    public func accepts(_ value: Double) -> Bool {
        value.isFinite && range.contains(value) && (!isInteger || value.rounded() == value)
    }

    /// `value` moved into ``range``.
    public func clamp(_ value: Int) -> Int {
        Int(min(max(Double(value), range.lowerBound), range.upperBound))
    }

    /// `value` moved into ``range``; NaN gives `fallback`.
    public func clamp(_ value: Double, nan fallback: Double) -> Double {
        value.isNaN ? fallback : min(max(value, range.lowerBound), range.upperBound)
    }

    /// A whole number without a decimal point, others as they are (`0.01`).
    public static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e18 ? String(Int(value)) : String(value)
    }

    private init(
        _ flag: String, _ variable: String?, _ range: ClosedRange<Double>, integer: Bool = true, _ unit: String,
        default defaultText: String, _ summary: String
    ) {
        self.flag = flag
        self.variable = variable
        self.range = range
        self.isInteger = integer
        self.unit = unit
        self.defaultText = defaultText
        self.summary = summary
    }

    // MARK: The table

    /// The row of `--port`.
    public static let port = ServeSetting(
        "--port", "PORT", 0...65535, "a port", default: "8080", "Port to listen on; 0: any free port, printed at start")
    /// The row of `--signature-size`.
    public static let signatureSize = ServeSetting(
        "--signature-size", "IMGPROXY_SIGNATURE_SIZE", 1...32, "a byte count", default: "32", "Bytes of MAC a signature carries")
    /// The row of `--max-source-pixels`.
    public static let maxSourcePixels = ServeSetting(
        "--max-source-pixels", "IMGPROXY_MAX_SRC_RESOLUTION", 1...1_000_000_000, "a pixel count", default: "50000000",
        "Largest source image in pixels, all frames together (the variable in megapixels)")
    /// The row of `--max-source-bytes`.
    public static let maxSourceBytes = ServeSetting(
        "--max-source-bytes", "IMGPROXY_MAX_SRC_FILE_SIZE", 1024...4_294_967_296, "a byte count", default: "50000000",
        "Largest source body in bytes (the variable's 0: the largest)")
    /// The row of `--max-output-pixels`.
    public static let maxOutputPixels = ServeSetting(
        "--max-output-pixels", nil, 1...1_000_000_000, "a pixel count", default: "50000000",
        "Largest output in pixels, all frames together")
    /// The row of `--max-animation-frames`.
    public static let maxAnimationFrames = ServeSetting(
        "--max-animation-frames", "IMGPROXY_MAX_ANIMATION_FRAMES", 1...10_000, "a frame count", default: "500",
        "Most frames of an animated output; 1: the first frame only")
    /// The row of `--timeout`.
    public static let timeout = ServeSetting(
        "--timeout", "IMGPROXY_TIMEOUT", 0.01...3600, integer: false, "a number of seconds", default: "30",
        "Seconds one request may take, the source fetch included")
    /// The row of `--workers`.
    public static let workers = ServeSetting(
        "--workers", "IMGPROXY_WORKERS", 1...1024, "a count", default: "4 per core",
        "Images processed at once (also --max-concurrent-transforms, IMGPROXY_CONCURRENCY)")
    /// The row of `--max-queue`.
    public static let maxQueue = ServeSetting(
        "--max-queue", "IMGPROXY_REQUESTS_QUEUE_SIZE", 0...100_000, "a request count", default: "256",
        "Requests that may wait for a transform slot before 503 (the variable's 0: the most)")
    /// The row of `--max-age`.
    public static let maxAge = ServeSetting(
        "--max-age", "IMGPROXY_TTL", 0...315_360_000, "seconds", default: "31536000", "Cache-Control max-age of images, in seconds")
    /// The row of `--cache-max-size`.
    public static let cacheMaxSize = ServeSetting(
        "--cache-max-size", nil, 1_048_576...17_592_186_044_416, "a byte count", default: "1073741824",
        "Bytes of sources and results on disk, for every instance sharing the cache directory")
    /// The row of `--cache-max-age`.
    public static let cacheMaxAge = ServeSetting(
        "--cache-max-age", nil, 60...315_360_000, integer: false, "a number of seconds", default: "604800",
        "Seconds a cached source or result may go unread before it is removed")
    /// The row of `--memory-cache-size`.
    public static let memoryCacheSize = ServeSetting(
        "--memory-cache-size", nil, 0...68_719_476_736, "a byte count", default: "268435456",
        "Bytes of encoded results kept in memory (sources get a quarter as much again)")
    /// The row of `--quality`.
    public static let quality = ServeSetting(
        "--quality", "IMGPROXY_QUALITY", 1...100, "a quality", default: "80", "Quality of lossy outputs when the URL names none")
    /// The row of `--max-memory`.
    public static let maxMemory = ServeSetting(
        "--max-memory", nil, 16_777_216...1_099_511_627_776, "a byte count", default: "a quarter of RAM, 256 MiB…8 GiB",
        "Bytes of decoded pixels all requests may hold at once")
    /// The row of `--io-threads`.
    public static let ioThreads = ServeSetting(
        "--io-threads", nil, 1...256, "a thread count", default: "4", "Threads reading the disk caches")

    /// Every numeric setting, in the documentation's order.
    public static let all: [ServeSetting] = [
        port, signatureSize, maxSourcePixels, maxSourceBytes, maxOutputPixels, maxAnimationFrames, timeout, workers,
        maxQueue, maxAge, cacheMaxSize, cacheMaxAge, memoryCacheSize, quality, maxMemory, ioThreads,
    ]
}
