import Foundation
import WebImageCodecs

/// The stored pixel size of JPEG, PNG, GIF and WebP data, read from the header alone.
///
/// The proxy needs it to plan a `fill` decode (see ``CoverDecodingCoder``) before any
/// pixel exists. Orientation is not read: the plan is made to hold either way.
enum ImageGeometry {
    /// The size, or `nil` for other formats and for headers that are cut short or malformed.
    static func size(of data: Data) -> PixelSize? {
        data.withUnsafeBytes { p -> PixelSize? in
            guard p.count >= 30 else { return nil }
            let size: PixelSize?
            switch ImageFormat.detect(p) {
            case .jpeg: size = jpeg(p)
            case .png, .apng: size = PixelSize(width: be32(p, 16), height: be32(p, 20))
            case .gif: size = PixelSize(width: Int(p[6]) | Int(p[7]) << 8, height: Int(p[8]) | Int(p[9]) << 8)
            case .webp: size = webp(p)
            default: size = nil
            }
            guard let size, size.width > 0, size.height > 0 else { return nil }
            return size
        }
    }

    private static func be16(_ p: UnsafeRawBufferPointer, _ i: Int) -> Int { Int(p[i]) << 8 | Int(p[i + 1]) }
    private static func be32(_ p: UnsafeRawBufferPointer, _ i: Int) -> Int { be16(p, i) << 16 | be16(p, i + 2) }
    private static func le24(_ p: UnsafeRawBufferPointer, _ i: Int) -> Int {
        Int(p[i]) | Int(p[i + 1]) << 8 | Int(p[i + 2]) << 16
    }

    /// Walks the marker segments to the first start-of-frame.
    private static func jpeg(_ p: UnsafeRawBufferPointer) -> PixelSize? {
        var i = 2
        while i + 9 < p.count {
            guard p[i] == 0xFF else { return nil }
            let marker = p[i + 1]
            if marker == 0xFF { i += 1; continue }
            // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC), which share the range.
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                return PixelSize(width: be16(p, i + 7), height: be16(p, i + 5))
            }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            i += 2 + be16(p, i + 2)
        }
        return nil
    }

    private static func webp(_ p: UnsafeRawBufferPointer) -> PixelSize? {
        let chunk = String(decoding: p[12..<16], as: UTF8.self)
        switch chunk {
        case "VP8 ":
            return PixelSize(width: (Int(p[26]) | Int(p[27]) << 8) & 0x3FFF, height: (Int(p[28]) | Int(p[29]) << 8) & 0x3FFF)
        case "VP8L":
            let bits = Int(p[21]) | Int(p[22]) << 8 | Int(p[23]) << 16 | Int(p[24]) << 24
            return PixelSize(width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            return PixelSize(width: le24(p, 24) + 1, height: le24(p, 27) + 1)
        default:
            return nil
        }
    }
}
