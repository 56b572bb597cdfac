import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as a value, with the classification the SSRF guard
/// (``AddressPolicy``) needs.
///
/// Parsing accepts only the canonical text forms (`inet_pton`): dotted-quad IPv4 and
/// RFC 4291 IPv6 (brackets, as in a URL host, are stripped). Host names and the exotic
/// IPv4 spellings that `inet_aton` accepts (`2130706433`, `0x7f.1`, `127.1`) are not
/// addresses here: the guard resolves them like any name, and classifies what they
/// resolve to.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address bytes in network order: 4 for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// What kind of address this is, for the policy's decision.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Routable on the public internet.
        case global
        /// 127.0.0.0/8, ::1.
        case loopback
        /// RFC 1918 (10/8, 172.16/12, 192.168/16), shared address space 100.64/10,
        /// unique-local fc00::/7 and the deprecated site-local fec0::/10.
        case privateNetwork
        /// 169.254/16 (cloud metadata lives at 169.254.169.254), fe80::/10.
        case linkLocal
        /// 224/4, ff00::/8.
        case multicast
        /// 0.0.0.0/8, ::.
        case unspecified
        /// Every other block IANA's special-purpose registries mark not globally reachable:
        /// 240/4, broadcast, the documentation and benchmarking blocks, IETF protocol
        /// assignments (192.0.0.0/24, 2001::/23 with Teredo), discard-only 100::/64,
        /// local-use NAT64 64:ff9b:1::/48, SRv6 SIDs… (see IANA's IPv4 and IPv6 special-purpose address registries).
        case reserved
    }

    /// Creates an address from 4 or 16 bytes; `nil` for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses `text` (`"10.0.0.1"`, `"::1"`, `"[fe80::1]"`); `nil` when it is not an address.
    public init?(_ text: String) {
        var host = text
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // A zone (`fe80::1%eth0`) names an interface; the address is what counts.
        if let percent = host.firstIndex(of: "%") { host = String(host[..<percent]) }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    /// Whether this is an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// The text form (`inet_ntop`), without brackets.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = isIPv4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        guard ok else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The IPv4 address an IPv6 address carries, when it is a form that reaches that
    /// IPv4 host: IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64
    /// `64:ff9b::a.b.c.d` and 6to4 `2002:aabb:ccdd::`. `nil` for IPv4 and other IPv6.
    public var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        let b = bytes
        let zeros10 = b[0..<10].allSatisfy { $0 == 0 }
        if zeros10, b[10] == 0xff, b[11] == 0xff { return IPAddress(bytes: Array(b[12..<16])) }
        // IPv4-compatible, but not :: and ::1, which are IPv6's own.
        if zeros10, b[10] == 0, b[11] == 0, b[12..<15].contains(where: { $0 != 0 }) || b[15] > 1 {
            return IPAddress(bytes: Array(b[12..<16]))
        }
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xff, b[3] == 0x9b, b[4..<12].allSatisfy({ $0 == 0 }) {
            return IPAddress(bytes: Array(b[12..<16]))
        }
        if b[0] == 0x20, b[1] == 0x02 { return IPAddress(bytes: Array(b[2..<6])) }
        return nil
    }

    /// The address's kind: an IPv6 form of an IPv4 address (mapped, compatible, NAT64
    /// `64:ff9b::/96`, 6to4) has the kind of that address; any other address the kind of
    /// the most specific IANA special-purpose block holding it,
    /// else ``Kind/global``.
    public var kind: Kind {
        if let v4 = embeddedIPv4 { return v4.kind }
        return SpecialPurposeBlock.block(of: self)?.kind ?? .global
    }

    /// The most specific IANA special-purpose block (or multicast range) holding this
    /// address as written, without looking inside IPv6 forms of IPv4 addresses; `nil` for
    /// ordinary global unicast.
    package var specialPurposeBlock: SpecialPurposeBlock? { SpecialPurposeBlock.block(of: self) }
}
