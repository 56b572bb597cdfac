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

    /// The boxes in `range`, read one at a time (a hostile file of a million empty boxes
    /// costs no memory), up to the end of the range or the first length that does not fit.
    static func boxes(_ p: UnsafeRawBufferPointer, in range: Range<Int>) -> Boxes {
        Boxes(p: p, offset: range.lowerBound, end: range.upperBound)
    }

    /// The boxes of one container, in order; see ``boxes(_:in:)``.
    struct Boxes: Sequence, IteratorProtocol {
        fileprivate let p: UnsafeRawBufferPointer
        fileprivate var offset: Int
        fileprivate let end: Int
        /// Whether iteration stopped at a length that did not fit (or a few bytes too
        /// short for a box) rather than at the end of the range.
        private(set) var stoppedEarly = false

        mutating func next() -> ISOBMFFBox? {
            guard offset < end else { return nil }
            guard let box = box(at: offset) else {
                stoppedEarly = true
                offset = end
                return nil
            }
            offset = box.range.upperBound
            return box
        }

        private func box(at offset: Int) -> ISOBMFFBox? {
            guard offset + 8 <= end else { return nil }
            let declared = u32(p, offset)
            var size = Int(declared)
            var header = 8
            if declared == 1 {
                guard offset + 16 <= end else { return nil }
                let large = UInt64(u32(p, offset + 8)) << 32 | UInt64(u32(p, offset + 12))
                guard large <= UInt64(end - offset) else { return nil }
                size = Int(large)
                header = 16
            } else if declared == 0 {
                size = end - offset
            }
            guard size >= header, size <= end - offset else { return nil }
            return ISOBMFFBox(type: u32(p, offset + 4), range: offset..<(offset + size),
                              body: (offset + header)..<(offset + size), extendsToEnd: declared == 0)
        }
    }

    /// Renames the box at `offset` in `p` to `free`, which every reader skips; its size,
    /// and so every offset after it, stays as it was.
    static func hide(boxAt offset: Int, in p: UnsafeMutableRawBufferPointer) {
        p.storeBytes(of: fourCC("free").bigEndian, toByteOffset: offset + 4, as: UInt32.self)
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
