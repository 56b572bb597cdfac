/// Resolves a host name to addresses for ``AddressPolicy``: the seam tests use to make a
/// name resolve to a loopback address of their choice (or differently on each call, as a
/// DNS-rebinding attacker would).
public protocol HostResolving: Sendable {
    /// The addresses of `host` (a name, not an address literal) for `port`, best first.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/cannotFindHost`` when the name does not resolve.
    func addresses(for host: String, port: Int) async throws(WebImageError) -> [IPAddress]

    /// The answer for `host` and `port` this resolver has at hand (a remembered one),
    /// given without suspending or blocking; `nil` when the name must be looked up. The
    /// downloader asks it before ``addresses(for:port:)``, so a hop on an event loop (a
    /// redirect, a retry) to a name resolved lately is checked there, with no task.
    /// The default answers `nil`; ``CachingHostResolver`` answers from its cache.
    func cachedAddresses(for host: String, port: Int) -> Result<[IPAddress], WebImageError>?
}

extension HostResolving {
    /// Nothing at hand: every name is looked up.
    public func cachedAddresses(for host: String, port: Int) -> Result<[IPAddress], WebImageError>? { nil }
}
