/// A GIF LZW decoder for the streams giflib refuses: minimum code sizes 9 to 11.
///
/// The GIF spec allows code sizes up to 11 bits (12-bit codes), but giflib stops at 8.
/// Images that use a larger minimum code size with a palette of at most 256 colours
/// decode fine in browsers, so this decodes them; literals past 255 cannot index any
/// palette and make the frame corrupt.
struct GIFLZWDecoder {
    /// Where the image's data ended.
    enum Outcome: Equatable {
        /// All rows were produced (or the stream ended early with its end code);
        /// `end` is the offset just past the block terminator.
        case complete(end: Int)
        /// The data ran out before the block terminator.
        case truncated
        /// An invalid code.
        case corrupt
    }

    /// Decodes the sub-blocks starting at `offset` into rows of `width` indices, calling
    /// `row` with each finished row and its number in file order.
    static func decode(
        _ bytes: [UInt8], from offset: Int, minimumCodeSize: Int, width: Int, height: Int,
        row: (UnsafeBufferPointer<UInt8>, Int) -> Void
    ) -> Outcome {
        guard (2...11).contains(minimumCodeSize), width > 0, height > 0 else { return .corrupt }
        let clear = 1 << minimumCodeSize, end = clear + 1
        var prefix = [Int](repeating: -1, count: 4096)
        var suffix = [UInt8](repeating: 0, count: 4096)
        var first = [UInt8](repeating: 0, count: 4096)
        var stack = [UInt8](repeating: 0, count: 4097)
        var line = [UInt8](repeating: 0, count: width)
        var column = 0, rowNumber = 0
        var codeWidth = minimumCodeSize + 1, nextFree = clear + 2, previous = -1
        var bitBuffer = 0, bitCount = 0
        var block = offset
        var finished = false

        while true {
            guard block < bytes.count else { return .truncated }
            let length = Int(bytes[block])
            if length == 0 { return .complete(end: block + 1) }
            guard block + 1 + length <= bytes.count else { return .truncated }
            if !finished {
                for i in (block + 1)..<(block + 1 + length) {
                    bitBuffer |= Int(bytes[i]) << bitCount
                    bitCount += 8
                    while bitCount >= codeWidth && !finished {
                        let code = bitBuffer & ((1 << codeWidth) - 1)
                        bitBuffer >>= codeWidth
                        bitCount -= codeWidth
                        if code == clear {
                            codeWidth = minimumCodeSize + 1
                            nextFree = clear + 2
                            previous = -1
                            continue
                        }
                        if code == end { finished = true; break }
                        // Expand `code` onto the stack (last pixel first).
                        var depth = 0
                        var walk: Int
                        if code < clear {
                            guard code < 256 else { return .corrupt }
                            walk = code
                        } else if code < nextFree && previous >= 0 {
                            walk = code
                        } else if code == nextFree && previous >= 0 {
                            stack[0] = first[previous]
                            depth = 1
                            walk = previous
                        } else {
                            return .corrupt
                        }
                        while walk >= clear {
                            stack[depth] = suffix[walk]
                            depth += 1
                            walk = prefix[walk]
                        }
                        stack[depth] = UInt8(walk)
                        depth += 1
                        let head = UInt8(walk)
                        if previous >= 0 && nextFree < 4096 {
                            prefix[nextFree] = previous
                            suffix[nextFree] = head
                            first[nextFree] = first[previous]
                            nextFree += 1
                            if nextFree == 1 << codeWidth && codeWidth < 12 { codeWidth += 1 }
                        }
                        if code < clear { first[code] = head }
                        previous = code
                        while depth > 0 && !finished {
                            depth -= 1
                            line[column] = stack[depth]
                            column += 1
                            if column == width {
                                line.withUnsafeBufferPointer { row($0, rowNumber) }
                                column = 0
                                rowNumber += 1
                                if rowNumber == height { finished = true }
                            }
                        }
                    }
                }
            }
            block += 1 + length
        }
    }
}
