/// Checks that a frame's LZW code stream holds only valid codes up to its end-of-information.
///
/// giflib stops decoding once a frame has all its pixels and skips the rest of the
/// sub-blocks unread, so a stream whose trailing codes are garbage would pass. Strict
/// decoders (and the test suites) reject such frames; this pass walks the code widths
/// and the dictionary size, without building strings, to do the same.
struct GIFLZWValidator {
    /// Whether the sub-blocks in `bytes[range]` (starting right after the minimum code
    /// size byte) form a valid code stream for `minimumCodeSize`. A stream that ends
    /// without an end-of-information code is accepted, as browsers do.
    static func isValid(_ bytes: [UInt8], range: Range<Int>, minimumCodeSize: Int) -> Bool {
        guard (1...8).contains(minimumCodeSize), range.lowerBound >= 0, range.upperBound <= bytes.count else {
            return false
        }
        return bytes.withUnsafeBufferPointer { p -> Bool in
            let clear = 1 << minimumCodeSize
            let end = clear + 1
            var width = minimumCodeSize + 1
            var nextFree = clear + 2
            var hasPrevious = false
            var bitBuffer: UInt32 = 0
            var bitCount = 0
            var block = range.lowerBound
            while block < range.upperBound {
                let length = Int(p[block])
                if length == 0 { return true }
                let blockEnd = min(block + 1 + length, range.upperBound)
                var i = block + 1
                while i < blockEnd {
                    bitBuffer |= UInt32(p[i]) << UInt32(bitCount)
                    bitCount += 8
                    i += 1
                    while bitCount >= width {
                        let code = Int(bitBuffer & ((1 << UInt32(width)) - 1))
                        bitBuffer >>= UInt32(width)
                        bitCount -= width
                        if code == clear {
                            width = minimumCodeSize + 1
                            nextFree = clear + 2
                            hasPrevious = false
                            continue
                        }
                        if code == end { return true }
                        let valid = code < clear || code < nextFree || (code == nextFree && hasPrevious)
                        guard valid else { return false }
                        if hasPrevious && nextFree < 4096 {
                            nextFree += 1
                            if nextFree == 1 << width && width < 12 { width += 1 }
                        }
                        hasPrevious = true
                    }
                }
                block = blockEnd
            }
            return true
        }
    }
}
