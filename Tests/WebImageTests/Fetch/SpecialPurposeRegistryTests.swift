import Foundation
import Testing
@testable import WebImage

/// The SSRF classifier against IANA's IPv4 and IPv6 Special-Purpose Address Registries:
/// every block, its first, middle and last address, refused by the default policy unless
/// the registry calls it globally reachable. No address here is connected to.
@Suite("AddressPolicy: IANA special-purpose blocks", .timeLimit(.minutes(1)))
struct SpecialPurposeRegistryTests {
    /// The registries as IANA publishes them (iana-ipv4-special-registry,
    /// iana-ipv6-special-registry), with their "Globally Reachable" column, plus the
    /// multicast ranges: written out here, independently of ``SpecialPurposeBlock/registry``.
    static let iana: [(cidr: String, global: Bool)] = [
        ("0.0.0.0/8", false), ("0.0.0.0/32", false), ("10.0.0.0/8", false), ("100.64.0.0/10", false),
        ("127.0.0.0/8", false), ("169.254.0.0/16", false), ("172.16.0.0/12", false), ("192.0.0.0/24", false),
        ("192.0.0.0/29", false), ("192.0.0.8/32", false), ("192.0.0.9/32", true), ("192.0.0.10/32", true),
        ("192.0.0.170/32", false), ("192.0.0.171/32", false), ("192.0.2.0/24", false), ("192.31.196.0/24", true),
        ("192.52.193.0/24", true), ("192.88.99.0/24", false), ("192.168.0.0/16", false), ("192.175.48.0/24", true),
        ("198.18.0.0/15", false), ("198.51.100.0/24", false), ("203.0.113.0/24", false), ("224.0.0.0/4", false),
        ("240.0.0.0/4", false), ("255.255.255.255/32", false),
        ("::1/128", false), ("::/128", false), ("::ffff:0:0/96", false), ("64:ff9b::/96", true),
        ("64:ff9b:1::/48", false), ("2002::/16", false), ("100::/64", false),
        ("100:0:0:1::/64", false), ("2001::/23", false), ("2001::/32", false), ("2001:1::1/128", true),
        ("2001:1::2/128", true), ("2001:1::3/128", true), ("2001:2::/48", false), ("2001:3::/32", true),
        ("2001:4:112::/48", true), ("2001:10::/28", false), ("2001:20::/28", true), ("2001:30::/28", true),
        ("2001:db8::/32", false), ("2620:4f:8000::/48", true), ("3fff::/20", false), ("5f00::/16", false),
        ("fc00::/7", false), ("fe80::/10", false), ("fec0::/10", false), ("ff00::/8", false),
    ]

    /// The first, a middle and the last address of `network`.
    static func samples(_ network: IPNetwork) -> [IPAddress] {
        let first = network.address.bytes
        var last = first, middle = first
        for i in first.indices {
            let hostBits = max(0, min(8, (i + 1) * 8 - network.prefixLength))
            let mask = UInt8(truncatingIfNeeded: (1 << hostBits) - 1)
            last[i] |= mask
            middle[i] |= mask & 0x55
        }
        return [first, middle, last].compactMap { IPAddress(bytes: $0) }
    }

    /// Blocks whose addresses carry an IPv4 address (mapped, NAT64, 6to4): judged by it.
    static let carriers: Set<String> = ["::ffff:0:0/96", "64:ff9b::/96", "2002::/16"]

    @Test("each IANA block: its addresses are refused unless globally reachable", arguments: iana)
    func block(_ cidr: String, _ global: Bool) throws {
        let network = try #require(IPNetwork(cidr))
        let policy = AddressPolicy.blockPrivateAddresses
        for address in Self.samples(network) {
            if Self.carriers.contains(cidr) {
                let v4 = try #require(address.embeddedIPv4, "\(address)")
                #expect(policy.permits(address) == policy.permits(v4), "\(address) carries \(v4)")
                continue
            }
            // A narrower block inside this one decides for its own addresses (192.0.0.9 in 192.0.0.0/24).
            let narrower = Self.iana.compactMap { IPNetwork($0.cidr) }.filter {
                $0.prefixLength > network.prefixLength && $0.containsSameFamily(address)
            }
            guard narrower.isEmpty else { continue }
            #expect(policy.permits(address) == global, "\(address) in \(cidr)")
            #expect(address.specialPurposeBlock?.network == network, "\(address) in \(cidr)")
        }
    }

    @Test("the classifier's table is exactly IANA's list")
    func tableMatchesRegistry() throws {
        let table = Set(SpecialPurposeBlock.registry.map { "\($0.network) \($0.kind == .global)" })
        let expected = Set(try Self.iana.map { "\(try #require(IPNetwork($0.cidr))) \($0.global)" })
        #expect(table == expected)
    }

    @Test("the blocks a review found missing, by example", arguments: [
        "192.0.0.1", "192.0.0.170", "198.18.0.1", "198.19.255.254", "192.0.2.10", "198.51.100.7", "203.0.113.200",
        "100.64.0.1", "100.127.255.254", "64:ff9b:1::a00:1", "2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2",
        "100::1", "2001:db8::1", "3fff::1",
    ])
    func refusedExamples(_ text: String) throws {
        #expect(!AddressPolicy.blockPrivateAddresses.permits(try #require(IPAddress(text))), "\(text)")
    }

    @Test("ordinary and anycast global addresses pass", arguments: [
        "8.8.8.8", "192.0.0.9", "192.0.0.10", "192.31.196.1", "2001:4860:4860::8888", "2001:1::1", "2001:3::1",
        "64:ff9b::808:808",
    ])
    func globalExamples(_ text: String) throws {
        #expect(AddressPolicy.blockPrivateAddresses.permits(try #require(IPAddress(text))), "\(text)")
    }
}
