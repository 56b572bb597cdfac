/// A CIDR block (`10.0.0.0/8`, `fd00::/8`) for ``AddressPolicy``'s allowlist.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The first address of the block (host bits cleared).
    public let address: IPAddress
    /// The prefix length: 0…32 for IPv4, 0…128 for IPv6.
    public let prefixLength: Int

    /// Parses `"a.b.c.d/n"` or `"x::/n"`; a bare address is a block of one.
    /// `nil` for anything else, or a prefix longer than the address.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let first = parts.first, let address = IPAddress(first) else { return nil }
        let bits = address.bytes.count * 8
        var length = bits
        if parts.count == 2 {
            guard let n = Int(parts[1]), (0...bits).contains(n) else { return nil }
            length = n
        }
        self.init(address: address, prefixLength: length)
    }

    /// A block of `address` with `prefixLength` bits (clamped to 0…the address's bits).
    public init(address: IPAddress, prefixLength: Int) {
        let bits = address.bytes.count * 8
        let length = min(max(prefixLength, 0), bits)
        var bytes = address.bytes
        for i in bytes.indices {
            let keep = min(max(length - i * 8, 0), 8)
            bytes[i] &= keep == 0 ? 0 : UInt8(truncatingIfNeeded: 0xff << (8 - keep))
        }
        self.address = IPAddress(bytes: bytes) ?? address
        self.prefixLength = length
    }

    /// Whether `other` lies in this block. An IPv4 block also holds the IPv6 forms of its
    /// addresses (`::ffff:10.0.0.1` is in `10.0.0.0/8`).
    public func contains(_ other: IPAddress) -> Bool {
        var candidate = other
        if address.isIPv4, !other.isIPv4, let v4 = other.embeddedIPv4 { candidate = v4 }
        guard candidate.bytes.count == address.bytes.count else { return false }
        return IPNetwork(address: candidate, prefixLength: prefixLength).address == address
    }

    /// Whether `other`, of this block's family, lies in it (no IPv6-to-IPv4 unwrapping).
    func containsSameFamily(_ other: IPAddress) -> Bool {
        guard other.bytes.count == address.bytes.count else { return false }
        var bits = prefixLength
        for i in address.bytes.indices where bits > 0 {
            let mask: UInt8 = bits >= 8 ? 0xff : UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            if other.bytes[i] & mask != address.bytes[i] { return false }
            bits -= 8
        }
        return true
    }

    public var description: String { "\(address)/\(prefixLength)" }
}
