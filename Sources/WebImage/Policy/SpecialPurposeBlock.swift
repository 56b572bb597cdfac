/// One block of IANA's IPv4 or IPv6 Special-Purpose Address Registry (RFC 6890 and its
/// updates), or of the multicast ranges, with the kind the SSRF guard gives its addresses.
///
/// ``IPAddress/kind`` classifies an address by the most specific block that holds it, so
/// the registry's exceptions (192.0.0.9/32 inside 192.0.0.0/24, say) win over the block
/// around them. A block the registry marks "Globally Reachable: True" is
/// ``IPAddress/Kind/global``; every other is refused by ``AddressPolicy``'s default.
/// The registries as of 2025 (IPv4 last updated 2024-11, IPv6 2025-02), plus 224.0.0.0/4,
/// ff00::/8 and the deprecated site-local fec0::/10.
package struct SpecialPurposeBlock: Sendable, Hashable, CustomStringConvertible {
    /// The block, as the registry writes it.
    package let network: IPNetwork
    /// The registry's name for it ("Benchmarking", "Documentation (TEST-NET-1)"…).
    package let name: String
    /// The kind its addresses have for the guard.
    package let kind: IPAddress.Kind

    init(_ cidr: String, _ name: String, _ kind: IPAddress.Kind) {
        // The table below is written by hand; a typo is a programming error, caught by the
        // classifier test that walks every block.
        guard let network = IPNetwork(cidr) else { preconditionFailure("bad CIDR in the special-purpose table: \(cidr)") }
        self.network = network
        self.name = name
        self.kind = kind
    }

    package var description: String { "\(network) (\(name))" }

    /// Every block, IPv4 first. The address kinds: registry entries that are not globally
    /// reachable are `.reserved` unless a narrower kind fits (private, loopback, link-local,
    /// unspecified, multicast); "Globally Reachable: True" entries are `.global`.
    package static let registry: [SpecialPurposeBlock] = ipv4 + ipv6

    static let ipv4: [SpecialPurposeBlock] = [
        .init("0.0.0.0/8", "This network", .unspecified),
        .init("0.0.0.0/32", "This host on this network", .unspecified),
        .init("10.0.0.0/8", "Private-Use", .privateNetwork),
        .init("100.64.0.0/10", "Shared Address Space", .privateNetwork),
        .init("127.0.0.0/8", "Loopback", .loopback),
        .init("169.254.0.0/16", "Link Local", .linkLocal),
        .init("172.16.0.0/12", "Private-Use", .privateNetwork),
        .init("192.0.0.0/24", "IETF Protocol Assignments", .reserved),
        .init("192.0.0.0/29", "IPv4 Service Continuity Prefix", .reserved),
        .init("192.0.0.8/32", "IPv4 dummy address", .reserved),
        .init("192.0.0.9/32", "Port Control Protocol Anycast", .global),
        .init("192.0.0.10/32", "Traversal Using Relays around NAT Anycast", .global),
        .init("192.0.0.170/32", "NAT64/DNS64 Discovery", .reserved),
        .init("192.0.0.171/32", "NAT64/DNS64 Discovery", .reserved),
        .init("192.0.2.0/24", "Documentation (TEST-NET-1)", .reserved),
        .init("192.31.196.0/24", "AS112-v4", .global),
        .init("192.52.193.0/24", "AMT", .global),
        .init("192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", .reserved),
        .init("192.168.0.0/16", "Private-Use", .privateNetwork),
        .init("192.175.48.0/24", "Direct Delegation AS112 Service", .global),
        .init("198.18.0.0/15", "Benchmarking", .reserved),
        .init("198.51.100.0/24", "Documentation (TEST-NET-2)", .reserved),
        .init("203.0.113.0/24", "Documentation (TEST-NET-3)", .reserved),
        .init("224.0.0.0/4", "Multicast", .multicast),
        .init("240.0.0.0/4", "Reserved", .reserved),
        .init("255.255.255.255/32", "Limited Broadcast", .reserved),
    ]

    static let ipv6: [SpecialPurposeBlock] = [
        .init("::1/128", "Loopback Address", .loopback),
        .init("::/128", "Unspecified Address", .unspecified),
        .init("::ffff:0:0/96", "IPv4-mapped Address", .reserved),
        .init("64:ff9b::/96", "IPv4-IPv6 Translat.", .global),
        .init("64:ff9b:1::/48", "IPv4-IPv6 Translat. (local use)", .reserved),
        .init("100::/64", "Discard-Only Address Block", .reserved),
        .init("100:0:0:1::/64", "Dummy IPv6 Prefix", .reserved),
        .init("2001::/23", "IETF Protocol Assignments", .reserved),
        .init("2001::/32", "TEREDO", .reserved),
        .init("2001:1::1/128", "Port Control Protocol Anycast", .global),
        .init("2001:1::2/128", "Traversal Using Relays around NAT Anycast", .global),
        .init("2001:1::3/128", "DNS-SD Service Registration Protocol Anycast", .global),
        .init("2001:2::/48", "Benchmarking", .reserved),
        .init("2001:3::/32", "AMT", .global),
        .init("2001:4:112::/48", "AS112-v6", .global),
        .init("2001:10::/28", "Deprecated (previously ORCHID)", .reserved),
        .init("2001:20::/28", "ORCHIDv2", .global),
        .init("2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix", .global),
        .init("2001:db8::/32", "Documentation", .reserved),
        .init("2002::/16", "6to4", .reserved),
        .init("2620:4f:8000::/48", "Direct Delegation AS112 Service", .global),
        .init("3fff::/20", "Documentation", .reserved),
        .init("5f00::/16", "Segment Routing (SRv6) SIDs", .reserved),
        .init("fc00::/7", "Unique-Local", .privateNetwork),
        .init("fe80::/10", "Link-Local Unicast", .linkLocal),
        .init("fec0::/10", "Site-Local (deprecated)", .privateNetwork),
        .init("ff00::/8", "Multicast", .multicast),
    ]

    /// The most specific block holding `address` (same family), or `nil` for an ordinary
    /// global unicast address.
    static func block(of address: IPAddress) -> SpecialPurposeBlock? {
        let table = address.isIPv4 ? ipv4 : ipv6
        var best: SpecialPurposeBlock?
        for block in table where block.network.address.bytes.count == address.bytes.count {
            guard block.network.containsSameFamily(address) else { continue }
            if best == nil || block.network.prefixLength > (best?.network.prefixLength ?? -1) { best = block }
        }
        return best
    }
}
