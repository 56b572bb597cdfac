/// A small zlib (RFC 1950) / DEFLATE (RFC 1951) decoder for PNG `iCCP` profiles.
///
/// WebImageCodecs does not link zlib itself (libpng does, behind its own API), and
/// profiles are a few kilobytes, so a plain canonical-Huffman decoder that reads one
/// bit at a time is fast enough. Every read is bounds-checked: corrupt or hostile data
/// gives `nil`, never a trap, and output stops at a limit.
enum ZlibInflater {
    /// The inflated bytes of a zlib stream, or `nil` when it is corrupt, its Adler-32
    /// checksum does not match, or it inflates to more than `limit` bytes.
    static func inflate(_ data: UnsafeRawBufferPointer, limit: Int) -> [UInt8]? {
        guard data.count >= 6, data[0] & 0x0F == 8, (Int(data[0]) << 8 | Int(data[1])) % 31 == 0,
              data[1] & 0x20 == 0 else { return nil }
        var state = State(input: UnsafeRawBufferPointer(rebasing: data[2...]), limit: limit)
        guard state.run(), state.position + 4 <= state.input.count else { return nil }
        let tail = state.position
        let stored = (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(state.input[tail + $1]) }
        return adler32(state.output) == stored ? state.output : nil
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for chunk in stride(from: 0, to: bytes.count, by: 5552) {
            for byte in bytes[chunk..<min(chunk + 5552, bytes.count)] {
                a += UInt32(byte)
                b += a
            }
            a %= 65521
            b %= 65521
        }
        return b << 16 | a
    }

    /// A canonical Huffman code: how many codes of each length, and the symbols in order.
    private struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []

        /// `nil` when the lengths over-subscribe the code space.
        init?(lengths: ArraySlice<Int>) {
            for length in lengths { counts[length] += 1 }
            var left = 1
            for length in 1..<16 {
                left = left * 2 - counts[length]
                if left < 0 { return nil }
            }
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
            symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, length) in zip(0..., lengths) where length != 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }
    }

    private struct State {
        let input: UnsafeRawBufferPointer
        let limit: Int
        var output: [UInt8] = []
        var position = 0
        var bitBuffer = 0
        var bitCount = 0

        init(input: UnsafeRawBufferPointer, limit: Int) {
            self.input = input
            self.limit = limit
        }

        mutating func bits(_ n: Int) -> Int? {
            while bitCount < n {
                guard position < input.count else { return nil }
                bitBuffer |= Int(input[position]) << bitCount
                position += 1
                bitCount += 8
            }
            let value = bitBuffer & ((1 << n) - 1)
            bitBuffer >>= n
            bitCount -= n
            return value
        }

        mutating func decode(_ h: Huffman) -> Int? {
            var code = 0, first = 0, index = 0
            for length in 1..<16 {
                guard let bit = bits(1) else { return nil }
                code |= bit
                let count = h.counts[length]
                if code - count < first { return h.symbols[index + code - first] }
                index += count
                first = (first + count) << 1
                code <<= 1
            }
            return nil
        }

        mutating func run() -> Bool {
            var last = 0
            repeat {
                guard let final = bits(1), let type = bits(2) else { return false }
                last = final
                switch type {
                case 0: guard stored() else { return false }
                case 1: guard let fixed = Self.fixed, codes(fixed.0, fixed.1) else { return false }
                case 2: guard dynamic() else { return false }
                default: return false
                }
            } while last == 0
            // The Adler-32 checksum starts at the next byte boundary.
            bitBuffer = 0
            bitCount = 0
            return true
        }

        mutating func stored() -> Bool {
            bitBuffer = 0
            bitCount = 0
            guard position + 4 <= input.count else { return false }
            let length = Int(input[position]) | Int(input[position + 1]) << 8
            let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
            position += 4
            guard length == ~complement & 0xFFFF, position + length <= input.count,
                  output.count + length <= limit else { return false }
            output.append(contentsOf: input[position..<(position + length)])
            position += length
            return true
        }

        static let fixed: (Huffman, Huffman)? = {
            var lengths = [Int](repeating: 8, count: 288)
            for i in 144..<256 { lengths[i] = 9 }
            for i in 256..<280 { lengths[i] = 7 }
            guard let literals = Huffman(lengths: lengths[...]),
                  let distances = Huffman(lengths: [Int](repeating: 5, count: 30)[...]) else { return nil }
            return (literals, distances)
        }()

        static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
        static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                  3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
        static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385,
                                   513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
        static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7,
                                    8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

        mutating func codes(_ literals: Huffman, _ distances: Huffman) -> Bool {
            while true {
                guard let symbol = decode(literals) else { return false }
                if symbol < 256 {
                    guard output.count < limit else { return false }
                    output.append(UInt8(symbol))
                } else if symbol == 256 {
                    return true
                } else {
                    let l = symbol - 257
                    guard l < 29, let extra = bits(Self.lengthExtra[l]),
                          let d = decode(distances), d < 30, let dExtra = bits(Self.distanceExtra[d]) else { return false }
                    let length = Self.lengthBase[l] + extra
                    let distance = Self.distanceBase[d] + dExtra
                    guard distance <= output.count, output.count + length <= limit else { return false }
                    let start = output.count - distance
                    for i in 0..<length { output.append(output[start + i]) }
                }
            }
        }

        mutating func dynamic() -> Bool {
            guard let nlen = bits(5).map({ $0 + 257 }), let ndist = bits(5).map({ $0 + 1 }),
                  let ncode = bits(4).map({ $0 + 4 }), nlen <= 286, ndist <= 30 else { return false }
            let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
            var codeLengths = [Int](repeating: 0, count: 19)
            for i in 0..<ncode {
                guard let value = bits(3) else { return false }
                codeLengths[order[i]] = value
            }
            guard let lengthCode = Huffman(lengths: codeLengths[...]) else { return false }
            var lengths: [Int] = []
            while lengths.count < nlen + ndist {
                guard let symbol = decode(lengthCode) else { return false }
                switch symbol {
                case 0..<16: lengths.append(symbol)
                case 16:
                    guard let previous = lengths.last, let n = bits(2) else { return false }
                    lengths += repeatElement(previous, count: n + 3)
                case 17:
                    guard let n = bits(3) else { return false }
                    lengths += repeatElement(0, count: n + 3)
                default:
                    guard let n = bits(7) else { return false }
                    lengths += repeatElement(0, count: n + 11)
                }
            }
            guard lengths.count == nlen + ndist, lengths[256] != 0,
                  let literals = Huffman(lengths: lengths[0..<nlen]),
                  let distances = Huffman(lengths: lengths[nlen...]) else { return false }
            return codes(literals, distances)
        }
    }
}
