import Crypto
import Foundation
import WebImage
import WebImageCodecs

/// Settings of an ``ImageProxy``, fixed when it starts.
///
/// Every numeric limit is clamped when set to its ``ServeSetting`` range, the one the
/// command line and the environment check, so no value can be out of range later.
public struct ProxyConfig: Sendable {
    // MARK: Signing

    /// Key/salt pairs URLs may be signed with (several for rotation; `IMGPROXY_KEY` and
    /// `IMGPROXY_SALT`). Default none: as in imgproxy, URLs are then not signed and any
    /// signature segment (`unsafe`, `insecure`, `_`) is accepted.
    public var keys: [URLSigner.KeyPair] = []
    /// Bytes of the MAC a signature carries (`IMGPROXY_SIGNATURE_SIZE`). Default 32; clamped to ``ServeSetting/signatureSize``.
    public var signatureSize = 32 { didSet { signatureSize = ServeSetting.signatureSize.clamp(signatureSize) } }
    /// Signature strings accepted without a check (`IMGPROXY_TRUSTED_SIGNATURES`). Default none.
    public var trustedSignatures: Set<String> = []

    /// Whether URLs must carry a valid signature: some key is configured.
    public var isSigning: Bool { !keys.isEmpty }

    // MARK: Language and output

    /// The URL language: path prefix, separator, presets, allowed options and schemes.
    public var language = ProxyLanguage()
    /// What results look like by default: qualities, formats, orientation, watermark…
    public var output = OutputSettings()

    // MARK: Sources

    /// Turn the SSRF guard off (`--allow-private-addresses`). Default `false`: loopback,
    /// private, link-local and other non-global addresses are refused on every hop.
    public var allowsPrivateAddresses = false
    /// Networks the SSRF guard lets through whatever their kind (`--allow-network CIDR`),
    /// e.g. an origin on the same host. Default none.
    public var allowedNetworks: [IPNetwork] = []
    /// Source host patterns (`--allow-host`): `example.com`, `.example.com` (the name and
    /// every name under it) or an address literal. Empty, the default, allows any host.
    public var allowedHosts: [String] = [] { didSet { allowedHosts = allowedHosts.map { $0.lowercased() } } }
    /// Source URL prefixes (`--allow-source`, imgproxy's `IMGPROXY_ALLOWED_SOURCES`),
    /// `*` matching any run of characters but `/`. Default none. A source passes when it
    /// matches a host pattern or a prefix; with neither list, any source passes. Checked on
    /// the source and on every redirect hop (``WebImage/HopPolicy``).
    public var allowedSources: [String] = []

    /// Kinds of non-global address the SSRF guard lets through
    /// (`IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES`, `…_LINK_LOCAL_…`, `…_PRIVATE_…`).
    /// Default none (imgproxy allows private addresses by default; this server does not).
    public var allowedAddressKinds: Set<IPAddress.Kind> = []
    /// Resolves source host names for the SSRF guard. Default ``WebImage/SystemHostResolver``
    /// (its own thread pool, 5 s per lookup).
    public var hostResolver: any HostResolving = SystemHostResolver()
    /// Where the watermark image is downloaded from at start (`IMGPROXY_WATERMARK_URL`,
    /// `--watermark-url`), when ``OutputSettings/watermark`` has none.
    public var watermarkURL: URL?

    /// The directory `local:///path` sources are read from (`--local-root`,
    /// `IMGPROXY_LOCAL_FILESYSTEM_ROOT`); `nil`, the default, turns `local://` off. Paths
    /// never leave it (see `LocalFileReader`).
    public var localRoot: URL?
    /// `s3://bucket/key` sources (`--use-s3`, `IMGPROXY_USE_S3`…). Off by default.
    public var s3 = S3Settings()
    /// What separates an S3 key from its version id in a source URL
    /// (`IMGPROXY_SOURCE_URL_QUERY_SEPARATOR`). Default `?`; empty: none.
    public var sourceURLQuerySeparator = "?"
    /// Presets of the `/info` endpoint (`--info-preset`, `IMGPROXY_INFO_PRESETS`), with
    /// its own option names; `default` applies to every info request. Default none.
    public var infoPresets = Presets()

    /// ``allowedHosts`` and ``allowedSources`` as the downloader's allowlist.
    public var sourceAllowlist: SourceAllowlist { SourceAllowlist(hosts: allowedHosts, urlPrefixes: allowedSources) }

    // MARK: Limits

    /// Largest source body in bytes. Default 50 MB; clamped to ``ServeSetting/maxSourceBytes``.
    public var maxSourceBytes = 50_000_000 { didSet { maxSourceBytes = ServeSetting.maxSourceBytes.clamp(maxSourceBytes) } }
    /// Most source pixels (all frames together). Default 50 million; clamped to ``ServeSetting/maxSourcePixels``.
    public var maxSourcePixels = 50_000_000 { didSet { maxSourcePixels = ServeSetting.maxSourcePixels.clamp(maxSourcePixels) } }
    /// Most output pixels (all frames together). Default 50 million; clamped to ``ServeSetting/maxOutputPixels``.
    public var maxOutputPixels = 50_000_000 { didSet { maxOutputPixels = ServeSetting.maxOutputPixels.clamp(maxOutputPixels) } }
    /// Most frames of an animated output; more fail with 422; 1 makes every output a still
    /// image of the first frame (`IMGPROXY_MAX_ANIMATION_FRAMES`). Default 500 (imgproxy: 1);
    /// clamped to ``ServeSetting/maxAnimationFrames``.
    public var maxAnimationFrames = 500 { didSet { maxAnimationFrames = ServeSetting.maxAnimationFrames.clamp(maxAnimationFrames) } }
    /// Seconds one request may take in all (the source fetch included); then 504.
    /// Default 30; clamped to ``ServeSetting/timeout`` (NaN gives the default).
    public var requestTimeout: TimeInterval = 30 {
        didSet { requestTimeout = ServeSetting.timeout.clamp(requestTimeout, nan: 30) }
    }
    /// Images fetched, decoded and encoded at once; more wait. Default 4 per core;
    /// clamped to ``ServeSetting/workers``.
    public var maxConcurrentTransforms = 4 * ProcessInfo.processInfo.activeProcessorCount {
        didSet { maxConcurrentTransforms = ServeSetting.workers.clamp(maxConcurrentTransforms) }
    }
    /// Requests that may wait for a transform slot; one more gets 503 with `Retry-After`.
    /// Default 256; clamped to ``ServeSetting/maxQueue``.
    public var maxQueuedTransforms = 256 { didSet { maxQueuedTransforms = ServeSetting.maxQueue.clamp(maxQueuedTransforms) } }
    /// Bytes of decoded pixels all requests may hold at once (`--max-memory`): each request
    /// reserves its planned peak (source at its decode size, intermediates, output, every
    /// frame of an animated output) from the source's header before anything is decoded,
    /// and waits for room when the budget is spent; a request that waited half the request
    /// timeout gets 503 with `Retry-After`. One request larger than the whole budget runs
    /// when nothing else does. Default a quarter of physical memory, at least 256 MiB and
    /// at most 8 GiB; clamped to ``ServeSetting/maxMemory``.
    public var maxMemoryBytes = ProxyConfig.defaultMaxMemoryBytes {
        didSet { maxMemoryBytes = ServeSetting.maxMemory.clamp(maxMemoryBytes) }
    }
    /// Threads for disk-cache reads (`--io-threads`). Default 4; clamped to ``ServeSetting/ioThreads``.
    public var ioThreads = 4 { didSet { ioThreads = ServeSetting.ioThreads.clamp(ioThreads) } }

    /// A quarter of physical memory, kept within 256 MiB…8 GiB.
    public static var defaultMaxMemoryBytes: Int {
        clamp(Int(clamping: ProcessInfo.processInfo.physicalMemory / 4), (256 << 20)...(8 << 30))
    }

    // MARK: Caching and responses

    /// Cache sources and results (memory and disk). `false` is `--no-cache`; in-flight
    /// requests still coalesce. Default `true`.
    public var isCacheEnabled = true
    /// Where the disk caches live; `nil`, the default, is the library's cache directory
    /// under the namespace `webimage-serve`.
    public var cacheDirectory: URL?
    /// Bytes of cached sources and results on disk, together, for every instance sharing
    /// ``cacheDirectory`` (`--cache-max-size`): trimmed while serving, least recently read
    /// first, down to 80 % whenever a write passes the limit (see ``WebImage/DiskBudget``). Default
    /// 1 GiB; clamped to ``ServeSetting/cacheMaxSize``.
    public var maxCacheBytes = 1 << 30 { didSet { maxCacheBytes = ServeSetting.cacheMaxSize.clamp(maxCacheBytes) } }
    /// Seconds a cached source or result may go unread before it is removed
    /// (`--cache-max-age`). Default one week; clamped to ``ServeSetting/cacheMaxAge`` (NaN gives the default).
    public var maxCacheAge: TimeInterval = 7 * 24 * 3600 {
        didSet { maxCacheAge = ServeSetting.cacheMaxAge.clamp(maxCacheAge, nan: 7 * 24 * 3600) }
    }
    /// Bytes of encoded results kept in memory; a quarter as much again holds recently
    /// used sources' bytes, shared by the requests that read them. Default 256 MiB;
    /// clamped to ``ServeSetting/memoryCacheSize``.
    public var memoryCacheBytes = 256 << 20 { didSet { memoryCacheBytes = ServeSetting.memoryCacheSize.clamp(memoryCacheBytes) } }
    /// `Cache-Control: max-age` of image responses, in seconds. Default one year;
    /// clamped to ``ServeSetting/maxAge``.
    public var maxAge = 31_536_000 { didSet { maxAge = ServeSetting.maxAge.clamp(maxAge) } }
    /// Quality of lossy outputs when the URL names none: ``OutputSettings/quality``.
    public var defaultQuality: Int {
        get { output.quality }
        set { output.quality = newValue }
    }

    /// The defaults listed on each property.
    public init() {}

    /// imgproxy's own defaults where they differ from ours (`--imgproxy-defaults`), so an
    /// imgproxy deployment's environment gives imgproxy's behaviour: no `Accept`-based
    /// format choice, animations answered with their first frame, no source size limit,
    /// 2 workers per core, a 10 s request timeout, private source addresses allowed
    /// (loopback and link-local still refused).
    public static var imgproxyDefaults: ProxyConfig {
        var config = ProxyConfig()
        config.output.autoWebP = false
        config.output.autoAVIF = false
        config.maxAnimationFrames = 1
        config.maxSourceBytes = 1 << 32
        config.maxConcurrentTransforms = 2 * ProcessInfo.processInfo.activeProcessorCount
        config.requestTimeout = 10
        config.allowedAddressKinds = [.privateNetwork]
        return config
    }

    private static func clamp(_ value: Int, _ range: ClosedRange<Int>) -> Int {
        min(max(value, range.lowerBound), range.upperBound)
    }

    // MARK: Fingerprint

    /// The revision of the proxy's imaging code: raised whenever a change makes the same
    /// request give other bytes, so results cached by an older build are not served.
    public static let engineRevision = "2026-11-25.1"

    /// Every setting that can change the bytes of a result, as name/value pairs. A new
    /// setting that shapes output belongs here.
    public var fingerprintFields: [(String, String)] {
        [
            ("engine", Self.engineRevision),
            ("codecs", CodecLibraries.summary),
            ("output", output.fingerprint),
            ("language", language.fingerprint),
            ("maxSourcePixels", "\(maxSourcePixels)"),
            ("maxOutputPixels", "\(maxOutputPixels)"),
            ("maxAnimationFrames", "\(maxAnimationFrames)"),
            // Where local:// and s3:// URLs lead: the same URL names other bytes elsewhere.
            ("localRoot", localRoot?.standardizedFileURL.path ?? ""),
            ("s3", s3.isEnabled ? "\(s3.endpoint?.absoluteString ?? "aws"):\(s3.usesPathStyle):\(s3.region)" : ""),
            ("infoPresets", infoPresets.definitions.keys.sorted().map { name in
                name + "=" + (infoPresets.definitions[name] ?? []).map { $0.joined(separator: ":") }.joined(separator: "/")
            }.joined(separator: ",")),
        ]
    }

    /// A hash of ``fingerprintFields`` (16 hex digits): part of every result's cache key
    /// and ETag, so a changed setting never serves bytes made under the old one, and
    /// instances with different settings sharing a cache directory never serve each
    /// other's results.
    public var fingerprint: String {
        var hash = SHA256()
        for (name, value) in fingerprintFields { hash.update(data: Array("\(name)=\(value)\n".utf8)) }
        return hash.finalize().prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
