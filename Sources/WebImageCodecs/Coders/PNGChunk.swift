import CPNGShim

/// One chunk of a PNG stream: its type and where its data lies in the file.
///
/// The APNG reader walks chunks itself because the system libpng ignores `acTL`,
/// `fcTL` and `fdAT`. Every offset is bounds-checked against the buffer.
struct PNGChunk: Sendable, Hashable {
    /// The four type letters as a big-endian number (`IHDR` is `0x4948_4452`).
    var type: UInt32
    /// Offset of the chunk's length field.
    var start: Int
    /// The chunk's data bytes.
    var data: Range<Int>

    /// The whole chunk: length, type, data and CRC.
    var whole: Range<Int> { start..<(data.upperBound + 4) }

    static let ihdr: UInt32 = 0x4948_4452
    static let plte: UInt32 = 0x504C_5445
    static let trns: UInt32 = 0x7452_4E53
    static let idat: UInt32 = 0x4944_4154
    static let iend: UInt32 = 0x4945_4E44
    static let exif: UInt32 = 0x6558_4966
    static let actl: UInt32 = 0x6163_544C
    static let fctl: UInt32 = 0x6663_544C
    static let fdat: UInt32 = 0x6664_4154

    /// The 8-byte PNG signature.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Whether the CRC stored after the data matches type and data.
    func hasValidCRC(in p: UnsafeRawBufferPointer) -> Bool {
        guard let base = p.baseAddress, whole.upperBound <= p.count else { return false }
        let covered = base.advanced(by: start + 4).assumingMemoryBound(to: UInt8.self)
        let computed = cpng_crc32(0, covered, data.count + 4)
        return computed == PNGChunk.readUInt32(p, at: data.upperBound)
    }

    /// The chunks after the signature up to and including `IEND`.
    ///
    /// Walking stops early, without error, at a truncated or malformed chunk: `complete`
    /// is `false` then. An empty list means the signature is wrong or missing.
    static func scan(_ p: UnsafeRawBufferPointer) -> (chunks: [PNGChunk], complete: Bool) {
        guard p.count >= 8, zip(p.prefix(8), signature).allSatisfy({ $0 == $1 }) else { return ([], false) }
        var chunks: [PNGChunk] = []
        var offset = 8
        while offset + 12 <= p.count {
            let length = Int(readUInt32(p, at: offset))
            // PNG limits chunk lengths to 2^31 - 1.
            guard length <= 0x7FFF_FFFF, length <= p.count - offset - 12 else { return (chunks, false) }
            let chunk = PNGChunk(type: readUInt32(p, at: offset + 4), start: offset,
                                 data: (offset + 8)..<(offset + 8 + length))
            chunks.append(chunk)
            if chunk.type == iend { return (chunks, true) }
            offset = chunk.whole.upperBound
        }
        return (chunks, false)
    }

    /// A big-endian 32-bit value; the caller checked `offset + 4 <= p.count`.
    static func readUInt32(_ p: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(p[offset]) << 24 | UInt32(p[offset + 1]) << 16 | UInt32(p[offset + 2]) << 8 | UInt32(p[offset + 3])
    }

    /// Appends a chunk with its length and CRC to `out`.
    static func append(type: UInt32, data: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        appendUInt32(UInt32(data.count), to: &out)
        let typeStart = out.count
        appendUInt32(type, to: &out)
        out.append(contentsOf: data)
        let crc = out.withUnsafeBufferPointer { b -> UInt32 in
            guard let base = b.baseAddress else { return 0 }
            return cpng_crc32(0, base + typeStart, b.count - typeStart)
        }
        appendUInt32(crc, to: &out)
    }

    static func appendUInt32(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 24))
        out.append(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }
}
