/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as TFRecord framing uses it,
/// table-driven one byte at a time.
enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
        return c
    }

    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    /// TFRecord's masked CRC: rotated right by 15 bits plus 0xA282EAD8, so a CRC stored
    /// inside CRC'd data does not make the outer CRC trivial.
    static func masked(_ bytes: some Sequence<UInt8>) -> UInt32 {
        let crc = checksum(bytes)
        return ((crc >> 15) | (crc << 17)) &+ 0xA282_EAD8
    }
}
