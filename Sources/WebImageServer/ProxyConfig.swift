import Foundation
import WebImage

/// Settings of an ``ImageProxy``, fixed when it starts.
///
/// Every numeric limit is clamped when set to the range its documentation gives, so no
/// value can be out of range later (the command line reports its own range errors).
public struct ProxyConfig: Sendable {
    // MARK: Signing

    /// Key/salt pairs URLs may be signed with (several for rotation). Default none.
    public var keys: [URLSigner.KeyPair] = []
    /// Accept `unsafe` in place of a signature (`--unsigned`). Default `false`.
    public var allowsUnsigned = false

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

    // MARK: Limits

    /// Largest source body in bytes. Default 50 MB; clamped to 1 KiB…4 GiB.
    public var maxSourceBytes = 50_000_000 { didSet { maxSourceBytes = Self.clamp(maxSourceBytes, 1024...(1 << 32)) } }
    /// Most source pixels (all frames together). Default 50 million; clamped to 1…1 billion.
    public var maxSourcePixels = 50_000_000 { didSet { maxSourcePixels = Self.clamp(maxSourcePixels, 1...1_000_000_000) } }
    /// Most output pixels (all frames together). Default 50 million; clamped to 1…1 billion.
    public var maxOutputPixels = 50_000_000 { didSet { maxOutputPixels = Self.clamp(maxOutputPixels, 1...1_000_000_000) } }
    /// Most frames of an animated output; more fail with 422. Default 500; clamped to 1…10,000.
    public var maxAnimationFrames = 500 { didSet { maxAnimationFrames = Self.clamp(maxAnimationFrames, 1...10_000) } }
    /// Seconds one request may take in all (the source fetch included); then 504.
    /// Default 30; clamped to 0.01…3600 (NaN gives the default).
    public var requestTimeout: TimeInterval = 30 {
        didSet { requestTimeout = requestTimeout.isNaN ? 30 : min(max(requestTimeout, 0.01), 3600) }
    }
    /// Images fetched, decoded and encoded at once; more wait. Default 4 per core;
    /// clamped to 1…1024.
    public var maxConcurrentTransforms = 4 * ProcessInfo.processInfo.activeProcessorCount {
        didSet { maxConcurrentTransforms = Self.clamp(maxConcurrentTransforms, 1...1024) }
    }
    /// Requests that may wait for a transform slot; one more gets 503 with `Retry-After`.
    /// Default 256; clamped to 0…100,000.
    public var maxQueuedTransforms = 256 { didSet { maxQueuedTransforms = Self.clamp(maxQueuedTransforms, 0...100_000) } }

    // MARK: Caching and responses

    /// Cache sources and results (memory and disk). `false` is `--no-cache`; in-flight
    /// requests still coalesce. Default `true`.
    public var isCacheEnabled = true
    /// Where the disk caches live; `nil`, the default, is the library's cache directory
    /// under the namespace `webimage-serve`.
    public var cacheDirectory: URL?
    /// Bytes of encoded results kept in memory. Default 256 MiB; clamped to 0…64 GiB.
    public var memoryCacheBytes = 256 << 20 { didSet { memoryCacheBytes = Self.clamp(memoryCacheBytes, 0...(64 << 30)) } }
    /// `Cache-Control: max-age` of image responses, in seconds. Default one year;
    /// clamped to 0…10 years.
    public var maxAge = 31_536_000 { didSet { maxAge = Self.clamp(maxAge, 0...315_360_000) } }
    /// Quality of lossy outputs when the URL names none (1–100). Default 80.
    public var defaultQuality = 80 { didSet { defaultQuality = Self.clamp(defaultQuality, 1...100) } }

    /// The defaults listed on each property.
    public init() {}

    private static func clamp(_ value: Int, _ range: ClosedRange<Int>) -> Int {
        min(max(value, range.lowerBound), range.upperBound)
    }

    /// Whether `host` matches ``allowedHosts`` (always, when the list is empty).
    func allowsSource(host: String) -> Bool {
        guard !allowedHosts.isEmpty else { return true }
        let name = host.lowercased()
        return allowedHosts.contains { pattern in
            pattern == name || (pattern.hasPrefix(".") && (name.hasSuffix(pattern) || "." + name == pattern))
        }
    }
}
