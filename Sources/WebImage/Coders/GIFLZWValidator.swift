/// Checks that a frame's LZW code stream holds only valid codes up to its end-of-information.
///
/// giflib stops decoding once a frame has all its pixels and skips the rest of the
/// sub-blocks unread, so a stream whose trailing codes are garbage would pass; and it
/// decodes a code past the next free dictionary entry into garbage pixels instead of
/// failing. Strict decoders (and the test suites) reject both; this pass walks the code
/// widths and the dictionary size, without building strings, to do the same.
///
/// It runs over every frame after giflib, so it is written for speed: wrapping
/// arithmetic, a 64-bit bit buffer filled several bytes at a time, and one comparison
/// against the highest valid code for the common case of a literal or known code.
struct GIFLZWValidator {
    /// Whether the sub-blocks in `bytes[range]` (starting right after the minimum code
    /// size byte) form a valid code stream for `minimumCodeSize`. A stream that ends
    /// without an end-of-information code is accepted, as browsers do.
    static func isValid(_ bytes: [UInt8], range: Range<Int>, minimumCodeSize: Int) -> Bool {
        guard (1...8).contains(minimumCodeSize), range.lowerBound >= 0, range.upperBound <= bytes.count else {
            return false
        }
        return bytes.withUnsafeBufferPointer { buffer -> Bool in
            guard let p = buffer.baseAddress else { return true }
            var state = State(minimumCodeSize: minimumCodeSize)
            var block = range.lowerBound
            while block < range.upperBound {
                let length = Int(p[block])
                if length == 0 { return true }
                let blockEnd = min(block &+ 1 &+ length, range.upperBound)
                var i = block &+ 1
                while i < blockEnd {
                    // Up to 6 bytes at once: with at most 11 bits left over, 59 fit in 64.
                    let take = min(blockEnd &- i, (64 &- state.bitCount) / 8, 6)
                    var k = 0
                    while k < take {
                        state.bits |= UInt64(p[i &+ k]) &<< UInt64(state.bitCount)
                        state.bitCount &+= 8
                        k &+= 1
                    }
                    i &+= take
                    switch state.consumeCodes() {
                    case .more: break
                    case .end: return true
                    case .invalid: return false
                    }
                }
                block = blockEnd
            }
            return true
        }
    }

    private enum Step {
        case more
        case end
        case invalid
    }

    /// The decoder's dictionary size and code width, without the dictionary.
    private struct State {
        let clear: Int
        let minimumWidth: Int
        var width: Int
        var mask: UInt64
        var nextFree: Int
        /// The highest code allowed next: below the clear code right after a clear (no
        /// previous code to extend), else up to the next free entry (the KwKwK case).
        var highest: Int
        var bits: UInt64 = 0
        var bitCount = 0

        init(minimumCodeSize: Int) {
            clear = 1 &<< minimumCodeSize
            minimumWidth = minimumCodeSize &+ 1
            width = minimumWidth
            mask = (1 &<< UInt64(minimumWidth)) &- 1
            nextFree = clear &+ 2
            highest = clear &- 1
        }

        /// Reads every whole code in the bit buffer.
        mutating func consumeCodes() -> Step {
            while bitCount >= width {
                let code = Int(truncatingIfNeeded: bits & mask)
                bits &>>= UInt64(width)
                bitCount &-= width
                if code == clear {
                    width = minimumWidth
                    mask = (1 &<< UInt64(width)) &- 1
                    nextFree = clear &+ 2
                    highest = clear &- 1
                    continue
                }
                if code == clear &+ 1 { return .end }
                if code > highest { return .invalid }
                // After a clear the first code adds no entry; every later one does.
                if highest >= clear && nextFree < 4096 {
                    nextFree &+= 1
                    if nextFree == 1 &<< width && width < 12 {
                        width &+= 1
                        mask = (1 &<< UInt64(width)) &- 1
                    }
                }
                highest = nextFree
            }
            return .more
        }
    }
}
