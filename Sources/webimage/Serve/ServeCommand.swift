import ArgumentParser
#if canImport(Glibc)
import CMalloc
#endif
import Foundation
import Logging
import Metrics
import Prometheus
import WebImage
import WebImageServer

/// `webimage serve`: the image proxy (imgproxy's URL and signature scheme) over HTTP.
///
/// Keys come from `--key/--salt` (repeatable, paired in order, for rotation) or
/// `WEBIMAGE_KEY`/`WEBIMAGE_SALT`. With neither and without `--unsigned`, dev mode: a
/// random key and salt are generated and printed on stderr. SIGTERM or SIGINT stops the
/// server gracefully: in-flight requests finish, then the caches are flushed.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the image proxy: GET /{signature}/{options…}/{base64url source}[.ext], /health, /metrics, /gallery.")

    @Option(help: "Port to listen on (0: any free port, printed at start).")
    var port = 8080
    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"
    @Option(help: "Hex signing key (repeat with --salt for key rotation).")
    var key: [String] = []
    @Option(help: "Hex signing salt, paired with --key in order.")
    var salt: [String] = []
    @Flag(help: "Accept unsigned URLs (`unsafe` in place of the signature). For local use.")
    var unsigned = false
    @Option(help: "Directory of the source and result caches (shared safely by several instances).")
    var cacheDir: String?
    @Flag(help: "Cache neither sources nor results (in-flight requests still coalesce).")
    var noCache = false
    @Flag(help: "Turn the SSRF guard off: allow loopback, private and link-local sources.")
    var allowPrivateAddresses = false
    @Option(help: "Let the SSRF guard pass this network (CIDR, e.g. 10.1.0.0/16). Repeatable.")
    var allowNetwork: [String] = []
    @Option(help: "Only fetch sources from this host (`.example.com` includes subdomains). Repeatable. Checked on every redirect hop.")
    var allowHost: [String] = []
    @Option(help: "Only fetch sources whose URL starts with this prefix (`*` matches anything but `/`), as IMGPROXY_ALLOWED_SOURCES. Repeatable. Checked on every redirect hop.")
    var allowSource: [String] = []
    @Option(parsing: .unconditional, help: "Largest source image in pixels, all frames together (1…1000000000).")
    var maxSourcePixels = 50_000_000
    @Option(parsing: .unconditional, help: "Largest source body in bytes (1024…4294967296).")
    var maxSourceBytes = 50_000_000
    @Option(parsing: .unconditional, help: "Largest output in pixels, all frames together (1…1000000000).")
    var maxOutputPixels = 50_000_000
    @Option(parsing: .unconditional, help: "Most frames of an animated output (1…10000).")
    var maxAnimationFrames = 500
    @Option(parsing: .unconditional, help: "Seconds one request may take, the source fetch included (0.01…3600).")
    var timeout = 30.0
    @Option(name: [.customLong("max-concurrent-transforms"), .customLong("workers")],
            parsing: .unconditional, help: "Images processed at once (1…1024; default 4 per core).")
    var maxConcurrentTransforms: Int?
    @Option(parsing: .unconditional, help: "Requests that may wait for a transform slot before 503 (0…100000).")
    var maxQueue = 256
    @Option(parsing: .unconditional, help: "Cache-Control max-age of images, in seconds (0…315360000).")
    var maxAge = 31_536_000
    @Option(parsing: .unconditional, help: "Bytes of sources and results on disk, together, for every instance sharing --cache-dir (1048576…17592186044416; default 1 GiB). Trimmed while serving, least recently read first.")
    var cacheMaxSize = 1 << 30
    @Option(parsing: .unconditional, help: "Seconds a cached source or result may go unread before it is removed (60…315360000; default one week).")
    var cacheMaxAge = 604_800.0
    @Option(parsing: .unconditional, help: "Quality of lossy outputs when the URL names none (1…100).")
    var quality = 80
    @Option(parsing: .unconditional, help: "Bytes of decoded pixels all requests may hold at once (16777216…1099511627776; default a quarter of RAM, 256 MiB…8 GiB). Requests wait for room, then 503.")
    var maxMemory: Int?
    @Option(parsing: .unconditional, help: "Threads reading the disk caches (1…256).")
    var ioThreads = 4
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    func validate() throws {
        try NumericOption.check(port, "--port", in: 0...65535, "a port")
        try NumericOption.check(maxSourcePixels, "--max-source-pixels", in: 1...1_000_000_000, "a pixel count")
        try NumericOption.check(maxSourceBytes, "--max-source-bytes", in: 1024...(1 << 32), "a byte count")
        try NumericOption.check(maxOutputPixels, "--max-output-pixels", in: 1...1_000_000_000, "a pixel count")
        try NumericOption.check(maxAnimationFrames, "--max-animation-frames", in: 1...10_000, "a frame count")
        try NumericOption.check(maxQueue, "--max-queue", in: 0...100_000, "a request count")
        try NumericOption.check(maxAge, "--max-age", in: 0...315_360_000, "seconds")
        try NumericOption.check(cacheMaxSize, "--cache-max-size", in: (1 << 20)...(1 << 44), "a byte count")
        guard cacheMaxAge.isFinite, (60...315_360_000).contains(cacheMaxAge) else {
            throw ValidationError("--cache-max-age must be a number of seconds from 60 to 315360000; got \(cacheMaxAge)")
        }
        try NumericOption.check(quality, "--quality", in: 1...100, "a quality")
        if let maxMemory { try NumericOption.check(maxMemory, "--max-memory", in: (16 << 20)...(1 << 40), "a byte count") }
        try NumericOption.check(ioThreads, "--io-threads", in: 1...256, "a thread count")
        if let maxConcurrentTransforms {
            try NumericOption.check(maxConcurrentTransforms, "--max-concurrent-transforms", in: 1...1024, "a count")
        }
        guard timeout.isFinite, (0.01...3600).contains(timeout) else {
            throw ValidationError("--timeout must be a number of seconds from 0.01 to 3600; got \(timeout)")
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level: unknown level \(logLevel)") }
        guard key.count == salt.count else { throw ValidationError("--key and --salt must be given the same number of times") }
        if unsigned && !key.isEmpty { throw ValidationError("--unsigned and --key exclude each other") }
        for network in allowNetwork where IPNetwork(network) == nil {
            throw ValidationError("--allow-network: not a CIDR block: \(network)")
        }
        _ = try keyPairs()
    }

    /// The key pairs from the options, else from the environment.
    private func keyPairs() throws -> [URLSigner.KeyPair] {
        var texts = Array(zip(key, salt))
        let environment = ProcessInfo.processInfo.environment
        if texts.isEmpty, let k = environment["WEBIMAGE_KEY"], let s = environment["WEBIMAGE_SALT"] {
            texts = [(k, s)]
        }
        return try texts.map { k, s in
            guard let pair = URLSigner.KeyPair(hexKey: k, hexSalt: s) else {
                throw ValidationError("Keys and salts must be hex strings (an even number of 0-9a-f digits); the key not empty")
            }
            return pair
        }
    }

    func run() async throws {
        Self.tuneAllocator()
        var logger = Logger(label: "webimage.serve")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))

        var config = ProxyConfig()
        config.keys = try keyPairs()
        config.allowsUnsigned = unsigned
        if config.keys.isEmpty && !unsigned {
            let pair = URLSigner.KeyPair.random()
            config.keys = [pair]
            FileHandle.standardError.write(Data("""
                webimage serve: no key given (--key/--salt, WEBIMAGE_KEY/WEBIMAGE_SALT): dev mode with a fresh key
                  WEBIMAGE_KEY=\(pair.hexKey)
                  WEBIMAGE_SALT=\(pair.hexSalt)

                """.utf8))
        }
        config.isCacheEnabled = !noCache
        config.cacheDirectory = cacheDir.map { URL(fileURLWithPath: $0, isDirectory: true) }
        config.allowsPrivateAddresses = allowPrivateAddresses
        config.allowedNetworks = allowNetwork.compactMap(IPNetwork.init)
        config.allowedHosts = allowHost
        config.allowedSources = allowSource
        config.maxCacheBytes = cacheMaxSize
        config.maxCacheAge = cacheMaxAge
        config.defaultQuality = quality
        if let maxMemory { config.maxMemoryBytes = maxMemory }
        config.ioThreads = ioThreads
        config.maxSourcePixels = maxSourcePixels
        config.maxSourceBytes = maxSourceBytes
        config.maxOutputPixels = maxOutputPixels
        config.maxAnimationFrames = maxAnimationFrames
        config.requestTimeout = timeout
        if let maxConcurrentTransforms { config.maxConcurrentTransforms = maxConcurrentTransforms }
        config.maxQueuedTransforms = maxQueue
        config.maxAge = maxAge

        let proxy = ImageProxy(config: config, logger: logger)
        let server = ProxyServer(proxy: proxy, host: host, port: port, metrics: registry, logger: logger)
        let shownHost = host.contains(":") ? "[\(host)]" : host
        try await server.run { port in
            FileHandle.standardError.write(Data("webimage serve: listening on http://\(shownHost):\(port) (gallery: /gallery)\n".utf8))
        }
    }

    /// Pixel buffers come and go in multi-megabyte blocks. glibc raises its mmap threshold
    /// to the size of the last freed mapping (up to 32 MB), after which such blocks come
    /// from the per-thread arenas and stay resident after they are freed, so the process
    /// would keep the peak of every thread instead of what `--max-memory` allows at once.
    /// A fixed threshold of 256 KiB returns every large buffer on free, and two arenas per
    /// core bound the small-object heaps.
    static func tuneAllocator() {
        #if canImport(Glibc)
        _ = mallopt(M_MMAP_THRESHOLD, 256 * 1024)
        _ = mallopt(M_ARENA_MAX, Int32(2 * ProcessInfo.processInfo.activeProcessorCount))
        #endif
    }
}
