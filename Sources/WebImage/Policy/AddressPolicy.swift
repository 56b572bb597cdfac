import Foundation

/// The downloader's SSRF guard: which addresses a transfer may connect to.
///
/// Servers and batch jobs fetch URLs they did not choose; without a guard, a URL (or a
/// redirect) naming `localhost`, `10.0.0.5` or the cloud metadata service at
/// `169.254.169.254` makes the process fetch from its own network. With a policy set in
/// ``HopPolicy/addresses`` (of ``DownloaderConfig/hopPolicy``) the downloader, before each request and **each
/// redirect hop**:
///
/// 1. takes the URL's host; a host in ``allowedHosts`` passes unchecked;
/// 2. resolves it with ``resolver`` (an address literal is not resolved; an answer the
///    resolver has at hand, ``HostResolving/cachedAddresses(for:port:)``, is taken as it
///    is), off the event loops, on ``SystemHostResolver/sharedPool`` for the system resolver;
/// 3. refuses the hop with ``WebImageCodecs/WebImageError/Code/forbiddenAddress`` (2011) when any
///    resolved address is of a kind in ``refusedKinds`` and not inside
///    ``allowedNetworks`` (IPv4-mapped, -compatible, NAT64 and 6to4 IPv6 forms count as
///    the IPv4 address they carry);
/// 4. connects to the address it checked: the HTTP client gets that address for the host
///    (with the `Host` header, the TLS server name and certificate verification still
///    for the host name), so no second DNS lookup, which a rebinding resolver could
///    answer differently, happens between the check and the connect.
///
/// Refusals happen before any connection is opened and never put the URL on the
/// manager's block list. The library's shared downloader has no policy (apps load LAN
/// images); `webimage fetch|prefetch --block-private-addresses` and `webimage serve`
/// use ``blockPrivateAddresses``. It is one half of a ``HopPolicy`` (with the source
/// allowlist), which has the recipe for untrusted URLs.
///
/// The kinds come from IANA's special-purpose address registries
/// (a table in `SpecialPurposeBlock.swift`): every block they mark not globally reachable is
/// refused by default.
public struct AddressPolicy: Sendable {
    /// The kinds of address refused. Default: every kind but ``IPAddress/Kind/global``.
    public var refusedKinds: Set<IPAddress.Kind>
    /// Host names allowed whatever they resolve to, compared case-insensitively; an entry
    /// starting with `.` (`.corp.example`) also allows every name under it. Default none.
    public var allowedHosts: Set<String>
    /// Blocks whose addresses are allowed whatever their kind (`10.1.0.0/16`). Default none.
    public var allowedNetworks: [IPNetwork]
    /// Resolves host names for the check. Default ``SystemHostResolver``.
    public var resolver: any HostResolving

    /// A policy refusing `refusedKinds`, with allowlists.
    public init(
        refusedKinds: Set<IPAddress.Kind> = Set(IPAddress.Kind.allCases).subtracting([.global]),
        allowedHosts: Set<String> = [], allowedNetworks: [IPNetwork] = [],
        resolver: any HostResolving = SystemHostResolver()
    ) {
        self.refusedKinds = refusedKinds
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.allowedNetworks = allowedNetworks
        self.resolver = resolver
    }

    /// Refuses loopback, private, link-local, multicast, unspecified and reserved
    /// addresses: the policy for untrusted URLs.
    public static var blockPrivateAddresses: AddressPolicy { AddressPolicy() }

    /// Whether a connection to `address` is allowed.
    public func permits(_ address: IPAddress) -> Bool {
        !refusedKinds.contains(address.kind) || allowedNetworks.contains { $0.contains(address) }
    }

    /// Whether `host` is allowed by name, without looking at its addresses.
    public func allowsByName(_ host: String) -> Bool {
        let name = host.lowercased()
        return allowedHosts.contains(name)
            || allowedHosts.contains { $0.hasPrefix(".") && name.hasSuffix($0) }
    }

    /// Checks `url`'s host and returns the address to connect to: `nil` when the host is
    /// allowed by name or is itself an address (nothing to resolve, so nothing to pin).
    /// Runs on the calling task; resolving suspends it.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/forbiddenAddress`` for a refused address,
    ///   ``WebImageCodecs/WebImageError/Code/cannotFindHost`` when the name does not resolve.
    func check(_ url: URL) async throws(WebImageError) -> IPAddress? {
        if let decided = checkWithoutLookup(url) { return try decided.get() }
        let host = url.host ?? ""
        return try decide(url, host: host, try await resolver.addresses(for: host, port: Self.port(of: url)))
    }

    /// ``check(_:)`` when it needs no lookup (no host, a host allowed by name, an address
    /// literal, a name whose answer the resolver has at hand:
    /// ``HostResolving/cachedAddresses(for:port:)``), decided now; `nil` when the host must
    /// be resolved.
    func checkWithoutLookup(_ url: URL) -> Result<IPAddress?, WebImageError>? {
        guard let host = url.host, !host.isEmpty else {
            return .failure(WebImageError(.invalidURL, "No host in \(url.redactedForLog)"))
        }
        if allowsByName(host) { return .success(nil) }
        if let literal = IPAddress(host) {
            return permits(literal) ? .success(nil) : .failure(refusal(url, literal))
        }
        guard let cached = resolver.cachedAddresses(for: host, port: Self.port(of: url)) else { return nil }
        return Result { () throws(WebImageError) in try decide(url, host: host, try cached.get()) }
    }

    /// The address to connect to among `addresses` of `host`: the first, when every one is permitted.
    private func decide(_ url: URL, host: String, _ addresses: [IPAddress]) throws(WebImageError) -> IPAddress {
        guard let first = addresses.first else {
            throw WebImageError(.cannotFindHost, "The host \(host) has no address")
        }
        if let refused = addresses.first(where: { !permits($0) }) { throw refusal(url, refused) }
        return first
    }

    private static func port(of url: URL) -> Int {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }

    private func refusal(_ url: URL, _ address: IPAddress) -> WebImageError {
        WebImageError(
            .forbiddenAddress,
            "\(url.redactedForLog) resolves to \(address) (\(address.kind.rawValue)), which the address policy refuses")
    }
}
