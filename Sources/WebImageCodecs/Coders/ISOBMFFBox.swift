/// One box of an ISO base media file (AVIF, HEIC/HEIF): its type, where it lies and
/// where its body starts, found by a scan that checks every length against its container.
///
/// The container readers that run before libavif or libheif sees a file
/// (``ISOBMFFImageSize``, ``AVIFTrackFilter``, ``AVIFAlphaGrid``) all walk boxes this way,
/// so hostile lengths are handled in one place.
struct ISOBMFFBox {
    /// The four-character type, big-endian (`meta` is 0x6D657461).
    let type: UInt32
    /// The whole box, header included.
    let range: Range<Int>
    /// The box after its size and type (and 64-bit size), before any version/flags.
    let body: Range<Int>
    /// Whether the box declared size 0: it runs to the end of its container.
    let extendsToEnd: Bool

    /// The boxes filling `range`, in order, up to the first whose length does not fit;
    /// `complete` is false when one did not (or a few bytes too short for a box were left).
    static func scan(_ p: UnsafeRawBufferPointer, in range: Range<Int>) -> (boxes: [ISOBMFFBox], complete: Bool) {
        var boxes: [ISOBMFFBox] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            guard offset + 8 <= range.upperBound else { return (boxes, false) }
            let declared = u32(p, offset)
            var size = Int(declared)
            var header = 8
            if declared == 1 {
                guard offset + 16 <= range.upperBound else { return (boxes, false) }
                let large = UInt64(u32(p, offset + 8)) << 32 | UInt64(u32(p, offset + 12))
                guard large <= UInt64(range.upperBound - offset) else { return (boxes, false) }
                size = Int(large)
                header = 16
            } else if declared == 0 {
                size = range.upperBound - offset
            }
            guard size >= header, size <= range.upperBound - offset else { return (boxes, false) }
            boxes.append(ISOBMFFBox(type: u32(p, offset + 4), range: offset..<(offset + size),
                                    body: (offset + header)..<(offset + size), extendsToEnd: declared == 0))
            offset += size
        }
        return (boxes, true)
    }

    /// `s` (four ASCII characters) as a box or item type.
    static func fourCC(_ s: StaticString) -> UInt32 {
        s.withUTF8Buffer { $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
    }

    /// The big-endian 32-bit value at `o`; the caller has checked that 4 bytes are there.
    static func u32(_ p: UnsafeRawBufferPointer, _ o: Int) -> UInt32 {
        UInt32(p[o]) << 24 | UInt32(p[o + 1]) << 16 | UInt32(p[o + 2]) << 8 | UInt32(p[o + 3])
    }
}
