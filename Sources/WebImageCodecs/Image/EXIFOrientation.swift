/// Reads the orientation tag (274) from EXIF data.
///
/// JPEG carries EXIF in an `APP1` segment after `"Exif\0\0"`; PNG in an `eXIf`
/// chunk; WebP in an `EXIF` chunk. All three hold a TIFF structure, which is what
/// this parses. Every offset is bounds-checked: hostile EXIF yields `nil`, never a trap.
public enum EXIFOrientation {
    /// The orientation in a TIFF-structured EXIF block (starting at `II*\0` or `MM\0*`),
    /// or `nil` when absent, invalid or out of range.
    public static func parse(tiff p: UnsafeRawBufferPointer) -> Orientation? {
        guard p.count >= 8 else { return nil }
        let little: Bool
        switch (p[0], p[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ o: Int) -> Int? {
            guard o >= 0, o + 2 <= p.count else { return nil }
            return little ? Int(p[o]) | Int(p[o + 1]) << 8 : Int(p[o]) << 8 | Int(p[o + 1])
        }
        func u32(_ o: Int) -> Int? {
            guard let a = u16(o), let b = u16(o + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for i in 0..<min(count, 512) {
            let entry = ifd + 2 + i * 12
            guard let tag = u16(entry) else { return nil }
            guard tag == 0x0112 else { continue }
            // Type SHORT (3), count 1: the value sits in the first two bytes of the value field.
            guard u16(entry + 2) == 3, let value = u16(entry + 8) else { return nil }
            return Orientation(rawValue: value)
        }
        return nil
    }

    /// The orientation in a JPEG `APP1` payload (which starts with `"Exif\0\0"`).
    public static func parse(app1 p: UnsafeRawBufferPointer) -> Orientation? {
        let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
        guard p.count > 6, zip(p.prefix(6), header).allSatisfy({ $0 == $1 }) else { return nil }
        return parse(tiff: UnsafeRawBufferPointer(rebasing: p[6...]))
    }
}
