import Foundation

/// What an ``ImageDownloader`` checks before the first request of a transfer and before
/// **every redirect hop**, so a source that is allowed cannot redirect the downloader
/// somewhere that is not.
///
/// 1. ``sources``: the URL by name (host patterns, URL prefixes). A refused hop fails with
///    ``WebImageCodecs/WebImageError/Code/sourceNotAllowed`` (2012) and no connection is opened to it.
/// 2. ``addresses``: the SSRF guard. The host is resolved and every address checked;
///    a refused hop fails with ``WebImageCodecs/WebImageError/Code/forbiddenAddress`` (2011), and an
///    allowed one is connected to at the address that was checked.
///
/// Refusals never put a URL on the manager's failed-URL block list.
///
/// **Untrusted URLs** (a proxy, a crawler): set both, and give the manager the downloader
/// alone, so no `file:` loader is reachable:
///
/// ```swift
/// var config = DownloaderConfig()
/// config.hopPolicy = HopPolicy(
///     sources: SourceAllowlist(hosts: [".images.example.com"]),
///     addresses: .blockPrivateAddresses)
/// let manager = ImageManager(cache: cache, loader: ImageDownloader(config: config))
/// ```
public struct HopPolicy: Sendable {
    /// URLs allowed by name; `nil`, the default, allows any.
    public var sources: SourceAllowlist?
    /// The SSRF guard; `nil`, the default, checks no address.
    public var addresses: AddressPolicy?

    /// A policy with the given checks; the default checks nothing.
    public init(sources: SourceAllowlist? = nil, addresses: AddressPolicy? = nil) {
        self.sources = sources
        self.addresses = addresses
    }

    /// Whether the policy checks anything.
    public var isEmpty: Bool { (sources?.isEmpty ?? true) && addresses == nil }

    /// Checks `url` by name, then by address; returns the address to connect to (see
    /// ``AddressPolicy``), or `nil` to connect as usual. Runs on the calling task; a
    /// name lookup suspends it on the address policy's resolver.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/sourceNotAllowed``, ``WebImageCodecs/WebImageError/Code/forbiddenAddress``,
    ///   ``WebImageCodecs/WebImageError/Code/cannotFindHost``.
    func check(_ url: URL) async throws(WebImageError) -> IPAddress? {
        if let sources, !sources.allows(url) {
            throw WebImageError(.sourceNotAllowed, "\(url.redactedForLog) is not an allowed source")
        }
        return try await addresses?.check(url)
    }

    /// ``check(_:)`` when it needs no name lookup, decided now; `nil` when the host must
    /// be resolved.
    func checkWithoutLookup(_ url: URL) -> Result<IPAddress?, WebImageError>? {
        if let sources, !sources.allows(url) {
            return .failure(WebImageError(.sourceNotAllowed, "\(url.redactedForLog) is not an allowed source"))
        }
        guard let addresses else { return .success(nil) }
        return addresses.checkWithoutLookup(url)
    }
}
