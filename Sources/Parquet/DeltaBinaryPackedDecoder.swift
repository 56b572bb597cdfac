/// Decodes parquet's DELTA_BINARY_PACKED integers (also the lengths inside the two DELTA
/// byte-array encodings), bounds-checked.
///
/// A header (block size, miniblocks per block, value count, first value), then blocks of a
/// minimum delta, one bit width per miniblock and the miniblocks' bit-packed deltas. Sums wrap
/// in two's complement, as the format asks.
enum DeltaBinaryPackedDecoder {
    /// Decodes exactly `count` values from `bytes[start...]`; returns them and where they end.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, from start: Int, count: Int, column: String
    ) throws(ParquetError) -> (values: [Int64], end: Int) {
        func fail(_ reason: String) -> ParquetError { .corruptPage(column: column, reason: "DELTA_BINARY_PACKED: \(reason)") }
        var position = start
        func varint() throws(ParquetError) -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard position < bytes.count else { throw fail("truncated") }
                let byte = bytes[position]
                position += 1
                guard shift < 64 else { throw fail("varint longer than 10 bytes") }
                result |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return result }
                shift += 7
            }
        }
        func zigzag() throws(ParquetError) -> Int64 {
            let raw = try varint()
            return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
        }
        let blockSize = try varint()
        let miniblocks = try varint()
        let total = try varint()
        guard blockSize > 0, blockSize % 128 == 0, blockSize <= 1 << 20, miniblocks > 0, blockSize % miniblocks == 0,
              (blockSize / miniblocks) % 32 == 0
        else { throw fail("block size \(blockSize) with \(miniblocks) miniblocks") }
        guard total == UInt64(count) else { throw fail("\(total) values where the page holds \(count)") }
        let perMiniblock = Int(blockSize / miniblocks)
        var last = try zigzag()
        var values: [Int64] = []
        values.reserveCapacity(count)
        if count > 0 { values.append(last) }
        while values.count < count {
            let minDelta = try zigzag()
            let widthsStart = position
            guard UInt64(bytes.count - position) >= miniblocks else { throw fail("miniblock bit widths truncated") }
            position += Int(miniblocks)
            for index in 0..<Int(miniblocks) where values.count < count {
                let width = Int(bytes[widthsStart + index])
                guard width <= 64 else { throw fail("bit width \(width)") }
                let length = perMiniblock * width / 8
                guard length <= bytes.count - position else { throw fail("miniblock truncated") }
                let end = position + length
                for i in 0..<min(perMiniblock, count - values.count) {
                    let delta = bits(bytes, from: position, end: end, offset: i * width, width: width)
                    last = last &+ minDelta &+ Int64(bitPattern: delta)
                    values.append(last)
                }
                position = end
            }
        }
        return (values, position)
    }

    /// `width` bits (0...64) at bit `offset` from `base`, least significant first, reading
    /// no byte at or past `end`.
    private static func bits(_ bytes: UnsafeRawBufferPointer, from base: Int, end: Int, offset: Int, width: Int) -> UInt64 {
        guard width > 0 else { return 0 }
        let first = base + offset >> 3
        let shift = offset & 7
        var result: UInt64 = 0
        var taken = 0
        var byte = first
        // Byte by byte: at most 9 bytes per value, and simple to keep in bounds.
        while taken < width + shift && byte < end {
            let part = UInt64(bytes[byte])
            if taken < 64 { result |= part << UInt64(taken) }
            taken += 8
            byte += 1
        }
        var value = result >> UInt64(shift)
        if shift > 0 && first + 8 < end && width + shift > 64 {
            value |= UInt64(bytes[first + 8]) << UInt64(64 - shift)
        }
        return width == 64 ? value : value & ((1 << UInt64(width)) - 1)
    }
}
