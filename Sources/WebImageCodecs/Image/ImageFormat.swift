import Foundation

/// The container format of encoded image data, as sniffed from its first bytes.
///
/// Raw values are the lowercase names used in JSON output and file extensions.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, Codable {
    case jpeg, png, apng, gif, webp, heic, heif, avif, bmp, tiff, ico, svg, pdf, jxl
    /// Not recognised.
    case undefined

    /// The usual file name extension, without a dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .apng: "png"
        case .undefined: ""
        default: rawValue
        }
    }

    /// The MIME type servers send for this format.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .apng: "image/apng"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .heif: "image/heif"
        case .avif: "image/avif"
        case .bmp: "image/bmp"
        case .tiff: "image/tiff"
        case .ico: "image/x-icon"
        case .svg: "image/svg+xml"
        case .pdf: "application/pdf"
        case .jxl: "image/jxl"
        case .undefined: "application/octet-stream"
        }
    }

    /// Identifies the format from the data's signature.
    ///
    /// Reads at most the first few hundred bytes, except for PNG, where telling APNG
    /// apart means walking the chunk headers up to the first `IDAT` (lengths only, no
    /// chunk bodies are read). Never throws; unknown or too-short data is `.undefined`.
    public static func detect(_ data: Data) -> ImageFormat {
        data.withUnsafeBytes { detect(UnsafeRawBufferPointer($0)) }
    }

    /// ``detect(_:)`` over raw bytes.
    public static func detect(_ p: UnsafeRawBufferPointer) -> ImageFormat {
        func starts(with signature: [UInt8], at offset: Int = 0) -> Bool {
            guard p.count >= offset + signature.count else { return false }
            for (i, b) in signature.enumerated() where p[offset + i] != b { return false }
            return true
        }
        // Only SOI: damaged files often carry a broken first marker that libjpeg still reads.
        if starts(with: [0xFF, 0xD8]) { return .jpeg }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return isAnimatedPNG(p) ? .apng : .png
        }
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return .gif }
        if starts(with: Array("RIFF".utf8)) && starts(with: Array("WEBP".utf8), at: 8) { return .webp }
        if starts(with: Array("BM".utf8)) && p.count >= 14 { return .bmp }
        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(with: [0x00, 0x00, 0x01, 0x00]) || starts(with: [0x00, 0x00, 0x02, 0x00]) { return .ico }
        if starts(with: Array("%PDF".utf8)) { return .pdf }
        // JPEG XL: bare codestream or ISO BMFF container.
        if starts(with: [0xFF, 0x0A]) { return .jxl }
        if starts(with: [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        if let brandFormat = isoBrandFormat(p) { return brandFormat }
        if looksLikeSVG(p) { return .svg }
        return .undefined
    }

    /// HEIF family (HEIC, HEIF, AVIF) from the ISO BMFF `ftyp` box's major and compatible brands.
    private static func isoBrandFormat(_ p: UnsafeRawBufferPointer) -> ImageFormat? {
        guard p.count >= 16, p[4] == 0x66, p[5] == 0x74, p[6] == 0x79, p[7] == 0x70 else { return nil }
        let boxSize = Int(p[0]) << 24 | Int(p[1]) << 16 | Int(p[2]) << 8 | Int(p[3])
        let end = min(max(boxSize, 16), p.count)
        var brands: [String] = []
        var offset = 8
        while offset + 4 <= end {
            if offset != 12 {  // bytes 12..<16 are the minor version, not a brand
                brands.append(String(decoding: p[offset..<offset + 4], as: UTF8.self))
            }
            offset += 4
        }
        let major = brands.first ?? ""
        if ["avif", "avis"].contains(major) { return .avif }
        if ["heic", "heix", "heim", "heis", "hevc", "hevx"].contains(major) { return .heic }
        if brands.dropFirst().contains(where: { $0 == "avif" || $0 == "avis" }) { return .avif }
        // A still-image container (mif1) is HEIF; an HEVC image sequence (msf1) is HEIC.
        if major == "msf1" && brands.contains(where: { ["heic", "hevc"].contains($0) }) { return .heic }
        if ["mif1", "msf1", "heif"].contains(major) { return .heif }
        if brands.contains("avif") { return .avif }
        if brands.contains("heic") { return .heic }
        if brands.contains("mif1") { return .heif }
        return nil
    }

    /// An APNG is a PNG with an `acTL` chunk before its first `IDAT`.
    private static func isAnimatedPNG(_ p: UnsafeRawBufferPointer) -> Bool {
        var offset = 8
        while offset + 8 <= p.count {
            let length = Int(p[offset]) << 24 | Int(p[offset + 1]) << 16 | Int(p[offset + 2]) << 8 | Int(p[offset + 3])
            let type = (p[offset + 4], p[offset + 5], p[offset + 6], p[offset + 7])
            if type == (0x61, 0x63, 0x54, 0x4C) { return true }   // acTL
            if type == (0x49, 0x44, 0x41, 0x54) { return false }  // IDAT
            let (next, overflow) = offset.addingReportingOverflow(12 + length)
            if overflow || length < 0 { return false }
            offset = next
        }
        return false
    }

    /// SVG is text: an `<svg` element near the start, possibly after an XML prolog or comments.
    private static func looksLikeSVG(_ p: UnsafeRawBufferPointer) -> Bool {
        let head = String(decoding: p.prefix(1024), as: UTF8.self).lowercased()
        let trimmed = head.drop(while: { $0.isWhitespace || $0 == "\u{FEFF}" })
        guard trimmed.hasPrefix("<") else { return false }
        return head.contains("<svg")
    }
}
