/// Resolves a host name to addresses for ``AddressPolicy``: the seam tests use to make a
/// name resolve to a loopback address of their choice (or differently on each call, as a
/// DNS-rebinding attacker would).
public protocol HostResolving: Sendable {
    /// The addresses of `host` (a name, not an address literal) for `port`, best first.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/cannotFindHost`` when the name does not resolve.
    func addresses(for host: String, port: Int) async throws(WebImageError) -> [IPAddress]
}
