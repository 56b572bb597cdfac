/// Hides the tracks of an AVIF image sequence that carry no pictures (audio, text, timed
/// metadata) from libavif, in the coder's private copy of the file.
///
/// libavif 0.11 (Debian 12) parses every track of the `moov` box and refuses the whole
/// file when one of them has no picture size, which is what an audio track's `tkhd`
/// declares: a valid sequence with a soundtrack fails as a parse error. libavif 1.x and
/// browsers skip such tracks. Renaming the box type of each `trak` whose handler is not
/// a picture (`pict`, `vide`) or an auxiliary picture such as alpha (`auxv`) to `free`
/// makes libavif 0.11 skip it the same way: the sizes and offsets of everything else are
/// unchanged. Every length is bounds-checked; hostile data is left as it is.
enum AVIFTrackFilter {
    /// Handlers of tracks an image sequence is made of.
    private static let pictureHandlers: Set<UInt32> = [fourCC("pict"), fourCC("vide"), fourCC("auxv")]

    /// Renames each top-level `moov/trak` box without a picture handler to `free`, in place.
    /// Returns how many tracks it hid.
    @discardableResult
    static func hideNonPictureTracks(in p: UnsafeMutableRawBufferPointer) -> Int {
        var hidden = 0
        forEachBox(in: UnsafeRawBufferPointer(p), range: 0..<p.count) { type, box, body in
            guard type == fourCC("moov") else { return }
            forEachBox(in: UnsafeRawBufferPointer(p), range: body) { type, trak, body in
                guard type == fourCC("trak"), let handler = handler(in: UnsafeRawBufferPointer(p), trak: body),
                      !pictureHandlers.contains(handler)
                else { return }
                p.storeBytes(of: fourCC("free").bigEndian, toByteOffset: trak.lowerBound + 4, as: UInt32.self)
                hidden += 1
            }
        }
        return hidden
    }

    /// The handler type of a track: `mdia/hdlr`, whose body is version/flags, pre_defined,
    /// then the handler type.
    private static func handler(in p: UnsafeRawBufferPointer, trak: Range<Int>) -> UInt32? {
        var found: UInt32?
        forEachBox(in: p, range: trak) { type, _, mdia in
            guard type == fourCC("mdia") else { return }
            forEachBox(in: p, range: mdia) { type, _, body in
                if type == fourCC("hdlr"), body.count >= 12 { found = u32(p, body.lowerBound + 8) }
            }
        }
        return found
    }

    /// Calls `visit(type, box, body)` for each box inside `range`; stops at the first
    /// length that does not fit.
    private static func forEachBox(in p: UnsafeRawBufferPointer, range: Range<Int>,
                                   _ visit: (UInt32, Range<Int>, Range<Int>) -> Void) {
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            var size = Int(u32(p, offset))
            var header = 8
            if size == 1 {
                guard offset + 16 <= range.upperBound else { return }
                let large = UInt64(u32(p, offset + 8)) << 32 | UInt64(u32(p, offset + 12))
                guard large <= UInt64(range.upperBound - offset) else { return }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= header, size <= range.upperBound - offset else { return }
            visit(u32(p, offset + 4), offset..<(offset + size), (offset + header)..<(offset + size))
            offset += size
        }
    }

    private static func fourCC(_ s: StaticString) -> UInt32 {
        s.withUTF8Buffer { $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
    }

    private static func u32(_ p: UnsafeRawBufferPointer, _ o: Int) -> UInt32 {
        UInt32(p[o]) << 24 | UInt32(p[o + 1]) << 16 | UInt32(p[o + 2]) << 8 | UInt32(p[o + 3])
    }
}
