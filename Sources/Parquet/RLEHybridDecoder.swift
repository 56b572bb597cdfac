/// Decodes parquet's RLE / bit-packed hybrid encoding (definition levels, dictionary indices,
/// RLE booleans) from one buffer, bounds-checked.
struct RLEHybridDecoder {
    private let bytes: UnsafeRawBufferPointer
    private var position: Int
    private let bitWidth: Int
    private let column: String

    /// `bitWidth` is 0...32; the data runs from `range.lowerBound` to its end.
    init(_ bytes: UnsafeRawBufferPointer, range: Range<Int>, bitWidth: Int, column: String) throws(ParquetError) {
        guard (0...32).contains(bitWidth) else {
            throw .corruptPage(column: column, reason: "RLE bit width \(bitWidth) over 32")
        }
        self.bytes = UnsafeRawBufferPointer(rebasing: bytes[range])
        position = 0
        self.bitWidth = bitWidth
        self.column = column
    }

    private func fail(_ reason: String) -> ParquetError { .corruptPage(column: column, reason: reason) }

    private mutating func varint() throws(ParquetError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.count else { throw fail("RLE run header truncated") }
            let byte = bytes[position]
            position += 1
            guard shift < 64 else { throw fail("RLE run header longer than 10 bytes") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// Decodes exactly `output.count` values into `output`.
    mutating func decode(into output: UnsafeMutableBufferPointer<UInt32>) throws(ParquetError) {
        var filled = 0
        let mask: UInt64 = bitWidth == 32 ? 0xFFFF_FFFF : (1 << UInt64(bitWidth)) - 1
        while filled < output.count {
            let header = try varint()
            let wanted = output.count - filled
            if header & 1 == 0 {
                // An RLE run: one value, repeated, stored in ceil(bitWidth / 8) bytes.
                let runLength = header >> 1
                guard runLength > 0 else { throw fail("empty RLE run") }
                let width = (bitWidth + 7) / 8
                guard bytes.count - position >= width else { throw fail("RLE run value truncated") }
                var value: UInt32 = 0
                for i in 0..<width { value |= UInt32(bytes[position + i]) << UInt32(8 * i) }
                position += width
                let count = runLength > UInt64(wanted) ? wanted : Int(runLength)
                output.baseAddress.map { ($0 + filled).initialize(repeating: value, count: count) }
                filled += count
            } else {
                // A bit-packed run of groups of 8 values, least significant bit first.
                let groups = header >> 1
                guard groups > 0, groups <= UInt64(bytes.count) else { throw fail("bit-packed run of \(groups) groups") }
                let runValues = Int(groups) * 8
                let runBytes = Int(groups) * bitWidth
                let count = min(runValues, wanted)
                // Writers may end the last run early, as long as the values asked for are there.
                let neededBytes = (count * bitWidth + 7) / 8
                guard bytes.count - position >= neededBytes else { throw fail("bit-packed run truncated") }
                let start = position
                let end = min(bytes.count, start + runBytes)
                for i in 0..<count {
                    let bit = i * bitWidth
                    let byte = start + bit >> 3
                    let shift = UInt64(bit & 7)
                    var word: UInt64
                    if byte + 8 <= end {
                        word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: byte, as: UInt64.self))
                    } else {
                        word = 0
                        var k = 0
                        while byte + k < end && k < 8 {
                            word |= UInt64(bytes[byte + k]) << UInt64(8 * k)
                            k += 1
                        }
                    }
                    output[filled + i] = UInt32(truncatingIfNeeded: (word >> shift) & mask)
                }
                filled += count
                position = end
            }
        }
    }
}
