/// Decodes one GIF image's LZW code stream into palette indices, checking every code as
/// it goes.
///
/// One pass does what giflib plus a separate validating pass used to: giflib turns a code
/// past the next free dictionary entry into garbage pixels instead of failing, and never
/// reads the codes after the last pixel. The whole image is decoded into ``indices``, so a
/// dictionary entry is just where its string was first written and its length: the
/// string of entry `previous + c` starts where `previous` was output and runs one index
/// past it. Emitting a code is then a forward copy from earlier output, 8 bytes at a time
/// when the copy does not overlap itself; there is no string stack, and nothing is
/// allocated per code or per frame once the buffers have grown. Minimum code sizes 9 to
/// 11, which giflib refuses, decode here too.
///
/// Reused for every frame of one decode, on one thread.
final class GIFLZWDecoder {
    /// Where the image's code stream ended.
    enum Outcome: Equatable {
        /// The stream reached its end code or the block terminator after `pixels` indices
        /// (at most the count asked for); `end` is the offset just past the terminator.
        case ended(end: Int, pixels: Int)
        /// The data ran out before the block terminator.
        case truncated
        /// An invalid code, or a literal that cannot index a 256-colour palette; `end` is
        /// the offset just past the terminator.
        case corrupt(end: Int)
    }

    private static let tableSize = 4096
    /// Where each entry's string starts in ``indices`` (entries past the literals).
    private let start = UnsafeMutablePointer<Int>.allocate(capacity: tableSize)
    private let first = UnsafeMutablePointer<UInt8>.allocate(capacity: tableSize)
    private let length = UnsafeMutablePointer<UInt16>.allocate(capacity: tableSize)
    /// The sub-blocks' payload, joined.
    private var codes = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    /// The decoded indices, file row order, valid up to the `pixels` of the last outcome.
    private(set) var indices = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)

    init() {
        for code in 0..<Self.tableSize {
            start[code] = 0
            first[code] = UInt8(truncatingIfNeeded: code)
            length[code] = 1
        }
    }

    deinit {
        start.deallocate()
        first.deallocate()
        length.deallocate()
        codes.deallocate()
        indices.deallocate()
    }

    /// Decodes the sub-blocks starting at `offset` (just past the minimum code size byte)
    /// into up to `pixelCount` indices.
    ///
    /// With `checksTrailingCodes`, the codes after the last pixel are read and checked up
    /// to the end code, as strict decoders do; without, decoding stops at the last pixel.
    /// A stream that stops without an end code is accepted, as browsers do.
    func decode(_ bytes: UnsafeBufferPointer<UInt8>, from offset: Int, minimumCodeSize: Int, pixelCount: Int,
                checksTrailingCodes: Bool) -> Outcome {
        guard let end = gather(bytes, from: offset) else { return .truncated }
        guard (1...11).contains(minimumCodeSize), pixelCount >= 0 else { return .corrupt(end: end.offset) }
        let codeCount = end.payload * 8 / (minimumCodeSize + 1)
        // Each code adds at most one index to the longest string, so a short stream cannot
        // ask for a frame-sized buffer.
        let reachable = codeCount < 4096 ? codeCount * (codeCount + 1) / 2 : codeCount * Self.tableSize
        let capacity = min(pixelCount, reachable)
        // Slack for the 8-byte copies, which may run up to 7 bytes past a string.
        reserveIndices(capacity + 8)
        guard let pixels = run(payload: end.payload, minimumCodeSize: minimumCodeSize, capacity: capacity,
                               checksTrailingCodes: checksTrailingCodes)
        else { return .corrupt(end: end.offset) }
        return .ended(end: end.offset, pixels: pixels)
    }

    /// Joins the payload of the sub-blocks at `offset` into `codes`; `nil` when the data
    /// ends before the terminator.
    private func gather(_ bytes: UnsafeBufferPointer<UInt8>, from offset: Int) -> (payload: Int, offset: Int)? {
        guard let source = bytes.baseAddress, offset >= 0 else { return nil }
        var block = offset, payload = 0
        while block < bytes.count {
            let size = Int(source[block])
            if size == 0 { return (payload, block + 1) }
            guard block + 1 + size <= bytes.count else { return nil }
            if payload + size > codes.count {
                let grown = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(2 * codes.count, payload + size, 4096))
                if let old = codes.baseAddress, let new = grown.baseAddress { new.update(from: old, count: payload) }
                codes.deallocate()
                codes = grown
            }
            if let destination = codes.baseAddress { (destination + payload).update(from: source + block + 1, count: size) }
            payload += size
            block += 1 + size
        }
        return nil
    }

    private func reserveIndices(_ count: Int) {
        guard count > indices.count else { return }
        indices.deallocate()
        indices = .allocate(capacity: count)
    }

    /// The LZW loop over `codes[0..<payload]`: the number of indices written, or `nil`
    /// for an invalid code. Wrapping arithmetic: every value is bounded by the checks.
    private func run(payload: Int, minimumCodeSize: Int, capacity: Int, checksTrailingCodes: Bool) -> Int? {
        guard payload > 0, capacity > 0 || checksTrailingCodes, let input = codes.baseAddress,
              let out = indices.baseAddress else { return 0 }
        // Locals, so the loop does not reload them from `self` after every store.
        let first = self.first, start = self.start, length = self.length
        let clear = 1 &<< minimumCodeSize, endCode = clear &+ 1
        // Literals past 255 (code sizes 9–11) cannot index any palette.
        let highestLiteral = min(clear &- 1, 255)
        // The previous frame's entries may sit where this frame's literals are.
        for literal in 0...highestLiteral {
            first[literal] = UInt8(truncatingIfNeeded: literal)
            length[literal] = 1
        }
        let minimumWidth = minimumCodeSize &+ 1
        var width = minimumWidth, mask = (1 &<< width) &- 1, widthLimit = 1 &<< width
        var nextFree = clear &+ 2, previous = -1, previousStart = 0
        var bits: UInt64 = 0, bitCount = 0, read = 0
        var written = 0

        while true {
            if bitCount < width {
                while bitCount <= 56 && read < payload {
                    bits |= UInt64(input[read]) &<< UInt64(bitCount)
                    read &+= 1
                    bitCount &+= 8
                }
                if bitCount < width { return written }
            }
            let code = Int(truncatingIfNeeded: bits) & mask
            bits &>>= UInt64(width)
            bitCount &-= width

            if code == clear {
                width = minimumWidth
                mask = (1 &<< width) &- 1
                widthLimit = 1 &<< width
                nextFree = clear &+ 2
                previous = -1
                continue
            }
            if code == endCode { return written }
            let head: UInt8
            if code < clear {
                guard code <= highestLiteral else { return nil }
                head = UInt8(truncatingIfNeeded: code)
            } else {
                // A known code, or the one being defined by this very code (KwKwK).
                guard previous >= 0, code <= nextFree else { return nil }
                head = code < nextFree ? first[code] : first[previous]
            }
            if previous >= 0 && nextFree < Self.tableSize {
                start[nextFree] = previousStart
                first[nextFree] = first[previous]
                length[nextFree] = length[previous] &+ 1
                nextFree &+= 1
                if nextFree == widthLimit && width < 12 {
                    width &+= 1
                    mask = (1 &<< width) &- 1
                    widthLimit = 1 &<< width
                }
            }
            previous = code
            previousStart = written

            // Past the last pixel (`room` 0) only the codes are checked. A string cut by the
            // frame's end keeps its start; nothing is written after it.
            let room = capacity &- written
            guard room > 0 else { continue }
            if code < clear {
                out[written] = head
                written &+= 1
                if written == capacity && !checksTrailingCodes { return written }
                continue
            }
            let count = min(Int(length[code]), room)
            let from = start[code]
            if written &- from >= 8 {
                var i = 0
                while i < count {
                    let chunk = UnsafeRawPointer(out + (from &+ i)).loadUnaligned(as: UInt64.self)
                    UnsafeMutableRawPointer(out + (written &+ i)).storeBytes(of: chunk, as: UInt64.self)
                    i &+= 8
                }
            } else {
                // Overlapping (KwKwK): each index may be one this copy just wrote.
                var i = 0
                while i < count {
                    out[written &+ i] = out[from &+ i]
                    i &+= 1
                }
            }
            written &+= count
            if written == capacity && !checksTrailingCodes { return written }
        }
    }
}
