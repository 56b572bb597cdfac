import ArgumentParser
#if canImport(Glibc)
import CMalloc
#endif
import Foundation
import Logging
import WebImage
import WebImageCodecs
import WebImageServer

/// `webimage serve`: the image proxy (imgproxy's URL language, signatures and
/// environment) over HTTP.
///
/// Settings come from, in increasing priority: the defaults (ours, or imgproxy's with
/// `--imgproxy-defaults`), imgproxy's `IMGPROXY_*` environment variables, then the flags.
/// Without a key, URLs are not signed and any signature segment is accepted, as in
/// imgproxy. SIGTERM or SIGINT stops the server gracefully: in-flight requests finish,
/// then the caches are flushed.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the image proxy: GET /{signature}/{options…}/{source}, /info/…, /health, /metrics, /gallery.",
        discussion: """
            Every setting also reads imgproxy's environment variable of the same meaning
            (IMGPROXY_KEY, IMGPROXY_SALT, IMGPROXY_BIND, IMGPROXY_WORKERS, IMGPROXY_QUALITY,
            IMGPROXY_PRESETS…; the proxy article, ImageProxy.md, lists them); a flag wins over its variable.
            """)

    /// The settings a flag or variable does not change: the defaults `--help` shows.
    static let defaults = ProxyConfig()
    static let defaultPort = 8080
    static let defaultHost = "127.0.0.1"

    @Option(help: "Port to listen on (0: any free port, printed at start; default \(Self.defaultPort)). Env: IMGPROXY_BIND, PORT — both listen on every interface (0.0.0.0) unless they name a host.")
    var port: Int?
    @Option(help: "Address to listen on (default \(Self.defaultHost)). Env: IMGPROXY_BIND.")
    var host: String?
    @Option(help: "Hex signing key (repeat with --salt for key rotation). Env: IMGPROXY_KEY.")
    var key: [String] = []
    @Option(help: "Hex signing salt, paired with --key in order. Env: IMGPROXY_SALT.")
    var salt: [String] = []
    @Flag(help: "No signatures: accept any signature segment (what happens anyway without a key).")
    var unsigned = false
    @Option(help: "Bytes of MAC a signature carries (\(ServeSetting.signatureSize.rangeText); default \(Self.defaults.signatureSize)). Env: IMGPROXY_SIGNATURE_SIZE.")
    var signatureSize: Int?
    @Flag(help: "Start from imgproxy's defaults (no format negotiation, animations as first frame…) instead of ours.")
    var imgproxyDefaults = false
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
    @Option(help: "Only fetch sources whose URL starts with this prefix (`*` matches anything but `/`). Repeatable. Checked on every redirect hop. Env: IMGPROXY_ALLOWED_SOURCES.")
    var allowSource: [String] = []
    @Option(parsing: .unconditional, help: "Largest source image in pixels, all frames together (\(ServeSetting.maxSourcePixels.rangeText); default \(Self.defaults.maxSourcePixels)). Env: IMGPROXY_MAX_SRC_RESOLUTION (megapixels).")
    var maxSourcePixels: Int?
    @Option(parsing: .unconditional, help: "Largest source body in bytes (\(ServeSetting.maxSourceBytes.rangeText); default \(Self.defaults.maxSourceBytes)). Env: IMGPROXY_MAX_SRC_FILE_SIZE.")
    var maxSourceBytes: Int?
    @Option(parsing: .unconditional, help: "Largest output in pixels, all frames together (\(ServeSetting.maxOutputPixels.rangeText); default \(Self.defaults.maxOutputPixels)).")
    var maxOutputPixels: Int?
    @Option(parsing: .unconditional, help: "Most frames of an animated output (\(ServeSetting.maxAnimationFrames.rangeText); 1: first frame only; default \(Self.defaults.maxAnimationFrames)). Env: IMGPROXY_MAX_ANIMATION_FRAMES.")
    var maxAnimationFrames: Int?
    @Option(parsing: .unconditional, help: "Seconds one request may take, the source fetch included (\(ServeSetting.timeout.rangeText); default \(Int(Self.defaults.requestTimeout))). Env: IMGPROXY_TIMEOUT.")
    var timeout: Double?
    @Option(name: [.customLong("max-concurrent-transforms"), .customLong("workers")],
            parsing: .unconditional, help: "Images processed at once (\(ServeSetting.workers.rangeText); default 4 per core, here \(Self.defaults.maxConcurrentTransforms)). Env: IMGPROXY_WORKERS.")
    var maxConcurrentTransforms: Int?
    @Option(parsing: .unconditional, help: "Requests that may wait for a transform slot before 503 (\(ServeSetting.maxQueue.rangeText); default \(Self.defaults.maxQueuedTransforms)). Env: IMGPROXY_REQUESTS_QUEUE_SIZE.")
    var maxQueue: Int?
    @Option(parsing: .unconditional, help: "Cache-Control max-age of images, in seconds (\(ServeSetting.maxAge.rangeText); default \(Self.defaults.maxAge)). Env: IMGPROXY_TTL.")
    var maxAge: Int?
    @Option(parsing: .unconditional, help: "Bytes of sources and results on disk, together, for every instance sharing --cache-dir (\(ServeSetting.cacheMaxSize.rangeText); default \(Self.defaults.maxCacheBytes >> 30) GiB). Trimmed while serving, least recently read first.")
    var cacheMaxSize: Int?
    @Option(parsing: .unconditional, help: "Seconds a cached source or result may go unread before it is removed (\(ServeSetting.cacheMaxAge.rangeText); default \(Int(Self.defaults.maxCacheAge) / 86_400) days).")
    var cacheMaxAge: Double?
    @Option(parsing: .unconditional, help: "Bytes of encoded results kept in memory (\(ServeSetting.memoryCacheSize.rangeText); default \(Self.defaults.memoryCacheBytes >> 20) MiB; sources get a quarter as much again).")
    var memoryCacheSize: Int?
    @Option(parsing: .unconditional, help: "Quality of lossy outputs when the URL names none (\(ServeSetting.quality.rangeText); default \(Self.defaults.output.quality)). Env: IMGPROXY_QUALITY.")
    var quality: Int?
    @Option(parsing: .unconditional, help: "Bytes of decoded pixels all requests may hold at once (\(ServeSetting.maxMemory.rangeText); default a quarter of RAM, 256 MiB…8 GiB). Requests wait for room, then 503.")
    var maxMemory: Int?
    @Option(parsing: .unconditional, help: "Threads reading the disk caches (\(ServeSetting.ioThreads.rangeText); default \(Self.defaults.ioThreads)).")
    var ioThreads: Int?
    @Option(help: "A preset, NAME=option/option… (repeatable). Env: IMGPROXY_PRESETS.")
    var preset: [String] = []
    @Option(help: "A file of presets, one NAME=options per line (# comments). Env: IMGPROXY_PRESETS_PATH.")
    var presetsFile: String?
    @Flag(help: "Presets-only URLs: /{signature}/{preset:preset…}/{source}. Env: IMGPROXY_ONLY_PRESETS.")
    var onlyPresets = false
    @Option(help: "The watermark image file. Env: IMGPROXY_WATERMARK_PATH (or _DATA, _URL).")
    var watermarkPath: String?
    @Option(help: "The watermark image's URL, downloaded once at start. Env: IMGPROXY_WATERMARK_URL.")
    var watermarkURL: String?
    @Option(help: "A prefix before the signature (e.g. /images). Env: IMGPROXY_PATH_PREFIX.")
    var pathPrefix: String?
    @Flag(help: "Allow the security options (max_src_resolution…) in URLs. Env: IMGPROXY_ALLOW_SECURITY_OPTIONS.")
    var allowSecurityOptions = false
    @Option(help: "Serve local:///path sources from files under this directory (never outside it). Env: IMGPROXY_LOCAL_FILESYSTEM_ROOT.")
    var localRoot: String?
    @Flag(help: "Serve s3://bucket/key sources (credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN). Env: IMGPROXY_USE_S3.")
    var useS3 = false
    @Option(help: "An S3-compatible store's URL (http:// when no scheme is given). Env: IMGPROXY_S3_ENDPOINT.")
    var s3Endpoint: String?
    @Option(help: "The S3 region signed for (default us-east-1). Env: IMGPROXY_S3_REGION, AWS_REGION.")
    var s3Region: String?
    @Flag(help: "Virtual-hosted S3 addressing ({bucket}.{endpoint host}) instead of path style. Env: IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE=false.")
    var s3VirtualHosted = false
    @Option(help: "Only serve this S3 bucket (repeatable). Env: IMGPROXY_S3_ALLOWED_BUCKETS.")
    var s3AllowBucket: [String] = []
    @Option(help: "Never serve this S3 bucket (repeatable). Env: IMGPROXY_S3_DENIED_BUCKETS.")
    var s3DenyBucket: [String] = []
    @Option(help: "An /info preset, NAME=option/option… with info options (repeatable). Env: IMGPROXY_INFO_PRESETS.")
    var infoPreset: [String] = []
    @Option(help: "How far a JPEG shrinks while decoded: libvips (default: the resample keeps a factor 2) or imgproxy (its rule: less work, imgproxy's pixels). Env: WEBIMAGE_SHRINK_ON_LOAD.")
    var shrinkOnLoad: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default info).")
    var logLevel = "info"

    func validate() throws {
        let numbers: [(ServeSetting, Double?)] = [
            (.port, port.map(Double.init)), (.signatureSize, signatureSize.map(Double.init)),
            (.maxSourcePixels, maxSourcePixels.map(Double.init)), (.maxSourceBytes, maxSourceBytes.map(Double.init)),
            (.maxOutputPixels, maxOutputPixels.map(Double.init)), (.maxAnimationFrames, maxAnimationFrames.map(Double.init)),
            (.timeout, timeout), (.workers, maxConcurrentTransforms.map(Double.init)), (.maxQueue, maxQueue.map(Double.init)),
            (.maxAge, maxAge.map(Double.init)), (.cacheMaxSize, cacheMaxSize.map(Double.init)), (.cacheMaxAge, cacheMaxAge),
            (.memoryCacheSize, memoryCacheSize.map(Double.init)), (.quality, quality.map(Double.init)),
            (.maxMemory, maxMemory.map(Double.init)), (.ioThreads, ioThreads.map(Double.init)),
        ]
        for case let (setting, value?) in numbers where !setting.accepts(value) {
            throw ValidationError("\(setting.flag) must be \(setting.expectation); got \(ServeSetting.format(value))")
        }
        if let shrinkOnLoad, ShrinkOnLoadRule(rawValue: shrinkOnLoad) == nil {
            throw ValidationError("--shrink-on-load must be libvips or imgproxy; got \(shrinkOnLoad)")
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level: unknown level \(logLevel)") }
        guard key.count == salt.count else { throw ValidationError("--key and --salt must be given the same number of times") }
        if unsigned && !key.isEmpty { throw ValidationError("--unsigned and --key exclude each other") }
        for network in allowNetwork where IPNetwork(network) == nil {
            throw ValidationError("--allow-network: not a CIDR block: \(network)")
        }
        _ = try settings()
        _ = try telemetry()
    }

    /// The OpenTelemetry export the environment asks for (``TelemetrySettings``).
    func telemetry() throws -> TelemetrySettings {
        do {
            return try TelemetrySettings(environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The proxy's settings and listen address: defaults, then the environment, then flags.
    func settings() throws -> (ProxyConfig, host: String, port: Int) {
        var config = imgproxyDefaults ? ProxyConfig.imgproxyDefaults : ProxyConfig()
        let bind: ProxyConfig.Bind
        do {
            (config, bind) = try config.applyingEnvironment(ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError("\(error)")
        }
        if !key.isEmpty {
            config.keys = try zip(key, salt).map { k, s in
                guard let pair = URLSigner.KeyPair(hexKey: k, hexSalt: s) else {
                    throw ValidationError("Keys and salts must be hex strings (an even number of 0-9a-f digits); the key not empty")
                }
                return pair
            }
        }
        if unsigned && !config.keys.isEmpty {
            // A key from the environment (a deployment's secret file) and --unsigned: refusing
            // is safer than letting one added flag open a signed deployment.
            let environment = ProcessInfo.processInfo.environment
            let variable = ["IMGPROXY_KEY", "WEBIMAGE_KEY", "IMGPROXY_SALT", "WEBIMAGE_SALT"]
                .first { environment[$0]?.trimmingCharacters(in: .whitespaces).isEmpty == false } ?? "IMGPROXY_KEY"
            throw ValidationError("--unsigned and \(variable) exclude each other: unset \(variable) to serve unsigned URLs, or drop --unsigned to keep signatures")
        }
        if let signatureSize { config.signatureSize = signatureSize }
        config.isCacheEnabled = !noCache
        if let cacheDir { config.cacheDirectory = URL(fileURLWithPath: cacheDir, isDirectory: true) }
        if allowPrivateAddresses { config.allowsPrivateAddresses = true }
        config.allowedNetworks += allowNetwork.compactMap(IPNetwork.init)
        if !allowHost.isEmpty { config.allowedHosts = allowHost }
        if !allowSource.isEmpty { config.allowedSources = allowSource }
        if let maxSourcePixels { config.maxSourcePixels = maxSourcePixels }
        if let maxSourceBytes { config.maxSourceBytes = maxSourceBytes }
        if let maxOutputPixels { config.maxOutputPixels = maxOutputPixels }
        if let maxAnimationFrames { config.maxAnimationFrames = maxAnimationFrames }
        if let timeout { config.requestTimeout = timeout }
        if let maxConcurrentTransforms { config.maxConcurrentTransforms = maxConcurrentTransforms }
        if let maxQueue { config.maxQueuedTransforms = maxQueue }
        if let maxAge { config.maxAge = maxAge }
        if let cacheMaxSize { config.maxCacheBytes = cacheMaxSize }
        if let cacheMaxAge { config.maxCacheAge = cacheMaxAge }
        if let memoryCacheSize { config.memoryCacheBytes = memoryCacheSize }
        if let quality { config.output.quality = quality }
        if let rule = shrinkOnLoad.flatMap(ShrinkOnLoadRule.init(rawValue:)) { config.output.shrinkOnLoad = rule }
        if let maxMemory { config.maxMemoryBytes = maxMemory }
        if let ioThreads { config.ioThreads = ioThreads }
        if let pathPrefix { config.language.pathPrefix = pathPrefix.hasSuffix("/") ? String(pathPrefix.dropLast()) : pathPrefix }
        if allowSecurityOptions { config.language.allowsSecurityOptions = true }
        if onlyPresets { config.language.onlyPresets = true }
        if let watermarkPath {
            guard let data = FileManager.default.contents(atPath: watermarkPath) else {
                throw ValidationError("--watermark-path: cannot read \(watermarkPath)")
            }
            config.output.watermark = data
        }
        if let watermarkURL {
            guard let url = URL(string: watermarkURL), url.scheme != nil else { throw ValidationError("--watermark-url: not a URL") }
            config.watermarkURL = url
        }
        var presetEntries = preset
        if let presetsFile {
            guard let data = FileManager.default.contents(atPath: presetsFile) else {
                throw ValidationError("--presets-file: cannot read \(presetsFile)")
            }
            presetEntries += String(decoding: data, as: UTF8.self).components(separatedBy: .newlines)
        }
        if let problem = Self.addPresets(presetEntries, to: &config.language) {
            throw ValidationError("presets: \(problem)")
        }
        if let localRoot {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: localRoot, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--local-root: \(localRoot) is not a directory")
            }
            config.localRoot = URL(fileURLWithPath: localRoot, isDirectory: true)
        }
        if useS3 { config.s3.isEnabled = true }
        if let s3Endpoint {
            guard let url = S3Settings.endpoint(s3Endpoint) else { throw ValidationError("--s3-endpoint: not an http(s) URL: \(s3Endpoint)") }
            config.s3.endpoint = url
        }
        if let s3Region { config.s3.region = s3Region }
        if s3VirtualHosted { config.s3.usesPathStyle = false }
        if !s3AllowBucket.isEmpty { config.s3.allowedBuckets = Set(s3AllowBucket) }
        if !s3DenyBucket.isEmpty { config.s3.deniedBuckets.formUnion(s3DenyBucket) }
        do throws(ProxyError) {
            if !infoPreset.isEmpty {
                config.infoPresets.merge(try Presets(entries: infoPreset, separator: config.language.separator))
            }
            try ImageProxy.validateInfoPresets(config)
        } catch {
            throw ValidationError("info presets: \(error.message)")
        }
        return (config, host ?? bind.host ?? Self.defaultHost, port ?? bind.port ?? Self.defaultPort)
    }

    /// Adds (and overrides with) the flags' presets, then checks every preset; the
    /// problem, if any.
    private static func addPresets(_ entries: [String], to language: inout ProxyLanguage) -> String? {
        do throws(ProxyError) {
            if !entries.isEmpty {
                language.presets.merge(try Presets(entries: entries, separator: language.separator))
            }
            try language.validate()
            return nil
        } catch {
            return error.message
        }
    }

    func run() async throws {
        Self.tuneAllocator()
        // Before any logger exists: the backends may add trace ids to every log line.
        let observability = try ServeObservability(telemetry())
        var logger = Logger(label: "webimage.serve")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info

        var (config, host, port) = try settings()
        let unread = ProxyConfig.unreadEnvironmentVariables(ProcessInfo.processInfo.environment)
        if !unread.isEmpty {
            // Once, at start: someone migrating from imgproxy sets exactly these and would
            // otherwise never learn that they do nothing here.
            FileHandle.standardError.write(Data((
                "webimage serve: warning: \(unread.count == 1 ? "this variable is" : "these variables are") not read by "
                + "webimage serve and have no effect: \(unread.joined(separator: ", ")) "
                + "(the proxy article, ImageProxy.md, lists the IMGPROXY_* variables it reads)\n").utf8))
        }
        if !config.isSigning {
            FileHandle.standardError.write(Data(
                "webimage serve: no key (--key/--salt, IMGPROXY_KEY/IMGPROXY_SALT): URLs are not signed\n".utf8))
        }
        if config.output.watermark == nil, let url = config.watermarkURL {
            config.output.watermark = try await Self.download(url)
        }
        let proxy = ImageProxy(config: config, logger: logger, tracing: observability.tracing)
        var server = ProxyServer(proxy: proxy, host: host, port: port, metrics: observability.registry, logger: logger)
        server.requestMetrics = observability.requestMetrics
        server.services = observability.services
        let shownHost = host.contains(":") ? "[\(host)]" : host
        try await server.run { port in
            FileHandle.standardError.write(Data("webimage serve: listening on http://\(shownHost):\(port) (gallery: /gallery)\n".utf8))
        }
    }

    /// The watermark's bytes, fetched once at start from the operator's own URL (no SSRF guard).
    private static func download(_ url: URL) async throws -> Data {
        var config = DownloaderConfig()
        config.hopPolicy.addresses = nil
        return try await ImageDownloader.withDownloader(config: config) { downloader in
            let response = try await downloader.loadImage(with: url, options: [.avoidDecodeImage])
            guard let data = response.data else { throw ValidationError("--watermark-url: empty answer") }
            return data
        }
    }

    /// Pixel buffers come and go in multi-megabyte blocks. By default glibc maps a block
    /// over 128 KiB fresh from the kernel and unmaps it on free, then raises that threshold
    /// to the last freed block's size: a proxy would either fault in (zeroed) new pages for
    /// every request's buffers or, once the threshold has moved, keep each arena's peak.
    /// Fixed values make both bounded: blocks up to 32 MiB (a 1/4-scale 12 MP decode is
    /// 3 MiB) come from the arenas and are reused by the next request, larger ones are
    /// mapped and returned on free; an arena gives back the free memory at its top beyond
    /// 64 MiB; two arenas per core bound the small-object heaps. Measured on 12 MP JPEG →
    /// 673×500 at 4 connections: 1,307 page faults per request with a 256 KiB threshold,
    /// 16 with these, and 7 % less CPU per request (Benchmarks/RESULTS.md).
    static func tuneAllocator() {
        #if canImport(Glibc)
        _ = mallopt(M_MMAP_THRESHOLD, 32 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 64 << 20)
        _ = mallopt(M_ARENA_MAX, Int32(2 * ProcessInfo.processInfo.activeProcessorCount))
        #endif
    }
}
