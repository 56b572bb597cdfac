/// Reads the IFDs of a TIFF structure (the body of an EXIF block), bounds-checked.
struct TIFFReader {
    let bytes: [UInt8]
    /// Where the TIFF header starts in ``bytes``; offsets count from it.
    let base: Int
    let bigEndian: Bool
    let firstIFD: Int

    /// One IFD entry.
    struct Field {
        var tag: UInt16
        var type: UInt16
        var count: Int
        var data: ArraySlice<UInt8>
        var bigEndian: Bool

        private func u16(_ i: Int) -> Int {
            let a = Int(data[data.startIndex + i]), b = Int(data[data.startIndex + i + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }

        private func u32(_ i: Int) -> Int {
            let p = data.startIndex + i
            let v = (0..<4).reduce(0) { $0 << 8 | Int(data[p + (bigEndian ? $1 : 3 - $1)]) }
            return v
        }

        /// The first component as an integer (SHORT or LONG), for IFD pointers.
        var firstInteger: Int? {
            switch type {
            case 3 where count >= 1: u16(0)
            case 4 where count >= 1, 13 where count >= 1: u32(0)
            default: nil
            }
        }

        /// The value as libvips prints a field's stored value; `nil` for binary data.
        var text: String? {
            switch type {
            case 2:
                let characters = data.prefix { $0 != 0 }
                return String(decoding: characters, as: UTF8.self)
            case 1: return data.map { String($0) }.joined(separator: " ")
            case 6: return data.map { String(Int8(bitPattern: $0)) }.joined(separator: " ")
            case 3: return (0..<count).map { String(u16($0 * 2)) }.joined(separator: " ")
            case 8: return (0..<count).map { String(Int16(truncatingIfNeeded: u16($0 * 2))) }.joined(separator: " ")
            case 4: return (0..<count).map { String(u32($0 * 4)) }.joined(separator: " ")
            case 9: return (0..<count).map { String(Int32(truncatingIfNeeded: u32($0 * 4))) }.joined(separator: " ")
            case 5: return (0..<count).map { "\(u32($0 * 8))/\(u32($0 * 8 + 4))" }.joined(separator: " ")
            case 10:
                return (0..<count).map {
                    "\(Int32(truncatingIfNeeded: u32($0 * 8)))/\(Int32(truncatingIfNeeded: u32($0 * 8 + 4)))"
                }.joined(separator: " ")
            case 7:
                let trimmed = data.reversed().drop { $0 == 0 }.reversed()
                guard !trimmed.isEmpty, trimmed.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return nil }
                return String(decoding: trimmed, as: UTF8.self)
            default: return nil
            }
        }
    }

    /// `nil` when `block` holds no TIFF header (`II*\0` or `MM\0*`) within its first 16 bytes.
    init?(_ block: [UInt8]) {
        guard let start = (0..<min(16, max(0, block.count - 8))).first(where: { i in
            (block[i] == 0x49 && block[i + 1] == 0x49 && block[i + 2] == 0x2A && block[i + 3] == 0)
                || (block[i] == 0x4D && block[i + 1] == 0x4D && block[i + 2] == 0 && block[i + 3] == 0x2A)
        }) else { return nil }
        bytes = block
        base = start
        bigEndian = block[start] == 0x4D
        let p = start + 4
        let offset = bigEndian
            ? Int(block[p]) << 24 | Int(block[p + 1]) << 16 | Int(block[p + 2]) << 8 | Int(block[p + 3])
            : Int(block[p + 3]) << 24 | Int(block[p + 2]) << 16 | Int(block[p + 1]) << 8 | Int(block[p])
        firstIFD = offset
    }

    private func read16(_ at: Int) -> Int? {
        let p = base + at
        guard at >= 0, p + 2 <= bytes.count else { return nil }
        return bigEndian ? Int(bytes[p]) << 8 | Int(bytes[p + 1]) : Int(bytes[p + 1]) << 8 | Int(bytes[p])
    }

    private func read32(_ at: Int) -> Int? {
        let p = base + at
        guard at >= 0, p + 4 <= bytes.count else { return nil }
        return (0..<4).reduce(0) { $0 << 8 | Int(bytes[p + (bigEndian ? $1 : 3 - $1)]) }
    }

    /// The entries of the IFD at `offset`; those whose data lies outside the block are skipped.
    func fields(at offset: Int) -> [Field] {
        guard let count = read16(offset) else { return [] }
        let sizes: [UInt16: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]
        var fields: [Field] = []
        for i in 0..<min(count, 512) {
            let entry = offset + 2 + i * 12
            guard let tag = read16(entry), let type = read16(entry + 2), let components = read32(entry + 4) else { break }
            guard let size = sizes[UInt16(type)], components > 0, components <= 65_536 else { continue }
            let length = size * components
            let dataOffset = length <= 4 ? entry + 8 : (read32(entry + 8) ?? -1)
            let start = base + dataOffset
            guard dataOffset >= 0, start + length <= bytes.count else { continue }
            fields.append(Field(tag: UInt16(tag), type: UInt16(type), count: components,
                                data: bytes[start..<(start + length)], bigEndian: bigEndian))
        }
        return fields
    }
}
