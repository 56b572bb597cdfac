import CPNGShim
import Foundation

/// The metadata blocks an image file carries — EXIF, XMP, IPTC (with Photoshop's
/// resolution record) and an ICC profile — found without decoding any pixel.
///
/// Where they are looked for: JPEG `APP1` (EXIF, XMP), `APP13` (Photoshop image
/// resources: IPTC, resolution) and `APP2` (ICC); PNG `eXIf`, `iTXt` `XML:com.adobe.xmp`
/// and `iCCP`; WebP `EXIF`, `XMP ` and `ICCP`; AVIF and HEIC through libavif and libheif
/// (EXIF, XMP, ICC). GIF carries none of them here. Every read is bounds-checked; a
/// damaged block is left out, never an error. Runs on the caller's thread.
public struct ImageMetadata: Sendable, Hashable {
    /// The EXIF block (a TIFF structure, possibly after `Exif\0\0`): read with ``exifEntries``.
    public var exif: [UInt8]?
    /// The XMP packet (UTF-8 XML): read with ``xmpProperties``.
    public var xmp: [UInt8]?
    /// The IPTC-IIM datasets of Photoshop resource 0x0404: read with ``iptcDatasets``.
    public var iptc: [UInt8]?
    /// Photoshop's resolution record (resource 0x03ED).
    public var photoshopResolution: PhotoshopResolution?
    /// The embedded ICC profile (JPEG's `APP2` chunks joined, PNG's inflated).
    public var iccProfile: [UInt8]?

    /// Photoshop's `ResolutionInfo`: pixels per unit and the units shown, as imgproxy Pro
    /// reports it under `photoshop.resolution`.
    public struct PhotoshopResolution: Sendable, Hashable {
        public var xResolution: Int
        /// `inches` or `cm`: what the resolution is per.
        public var xResolutionUnit: String
        /// `inches`, `cm`, `points`, `picas` or `columns`.
        public var widthUnit: String
        public var yResolution: Int
        public var yResolutionUnit: String
        public var heightUnit: String
    }

    /// No metadata.
    public init() {}

    /// The metadata of the image in `data`; empty for an unknown format.
    public init(reading data: Data) {
        self.init()
        data.withUnsafeBytes { p in
            switch ImageFormat.detect(p) {
            case .jpeg: readJPEG(p)
            case .png, .apng: readPNG(p)
            case .webp: readWebP(p)
            case .avif: readAVIF(data)
            case .heic, .heif: readHEIF(p)
            default: break
            }
        }
    }

    /// ``exif``'s tags (see ``EXIFTags``); empty without EXIF.
    public var exifEntries: [EXIFTags.Entry] { exif.map(EXIFTags.entries) ?? [] }

    /// ``iptc``'s datasets (see ``IPTCDatasets``); empty without IPTC.
    public var iptcDatasets: [IPTCDatasets.Dataset] { iptc.map(IPTCDatasets.parse) ?? [] }

    /// ``xmp``'s simple properties (see ``XMPProperties``); empty without XMP.
    public var xmpProperties: [String: [String: XMPProperties.Value]] { xmp.map(XMPProperties.parse) ?? [:] }

    // MARK: JPEG

    private mutating func readJPEG(_ p: UnsafeRawBufferPointer) {
        var i = 2
        var iccChunks: [Int: [UInt8]] = [:]
        while i + 4 <= p.count {
            guard p[i] == 0xFF else { break }
            let marker = p[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            // Start of scan or end of image: the metadata segments are all before it.
            if marker == 0xDA || marker == 0xD9 { break }
            let length = Int(p[i + 2]) << 8 | Int(p[i + 3])
            guard length >= 2, i + 2 + length <= p.count else { break }
            let payload = UnsafeRawBufferPointer(rebasing: p[(i + 4)..<(i + 2 + length)])
            switch marker {
            case 0xE1:
                if Self.starts(payload, "Exif\0\0"), exif == nil {
                    exif = Array(payload)
                } else if Self.starts(payload, "http://ns.adobe.com/xap/1.0/\0"), xmp == nil {
                    xmp = Array(payload.dropFirst(29))
                }
            case 0xE2 where Self.starts(payload, "ICC_PROFILE\0") && payload.count > 14:
                iccChunks[Int(payload[12])] = Array(payload.dropFirst(14))
            case 0xED where Self.starts(payload, "Photoshop 3.0\0"):
                readPhotoshop(UnsafeRawBufferPointer(rebasing: payload.dropFirst(14)))
            default: break
            }
            i += 2 + length
        }
        if !iccChunks.isEmpty {
            iccProfile = iccChunks.keys.sorted().flatMap { iccChunks[$0] ?? [] }
        }
    }

    /// Photoshop image resources: `8BIM`, a 2-byte id, a padded Pascal name, a 4-byte
    /// size and the data padded to even length.
    private mutating func readPhotoshop(_ p: UnsafeRawBufferPointer) {
        var i = 0
        while i + 12 <= p.count, Self.starts(UnsafeRawBufferPointer(rebasing: p[i...]), "8BIM") {
            let id = Int(p[i + 4]) << 8 | Int(p[i + 5])
            let nameLength = Int(p[i + 6])
            var j = i + 6 + 1 + nameLength
            if (1 + nameLength) % 2 == 1 { j += 1 }
            guard j + 4 <= p.count else { return }
            let size = Int(p[j]) << 24 | Int(p[j + 1]) << 16 | Int(p[j + 2]) << 8 | Int(p[j + 3])
            let start = j + 4
            guard size >= 0, start + size <= p.count else { return }
            let body = UnsafeRawBufferPointer(rebasing: p[start..<(start + size)])
            if id == 0x0404, iptc == nil { iptc = Array(body) }
            if id == 0x03ED, body.count >= 16 { photoshopResolution = Self.resolution(body) }
            i = start + size + size % 2
        }
    }

    private static func resolution(_ p: UnsafeRawBufferPointer) -> PhotoshopResolution {
        func u16(_ o: Int) -> Int { Int(p[o]) << 8 | Int(p[o + 1]) }
        func resolutionUnit(_ v: Int) -> String { v == 2 ? "cm" : "inches" }
        func sizeUnit(_ v: Int) -> String { ["inches", "inches", "cm", "points", "picas", "columns"][min(max(v, 0), 5)] }
        // Fixed 16.16 resolutions; the whole part is what Photoshop shows.
        return PhotoshopResolution(
            xResolution: u16(0), xResolutionUnit: resolutionUnit(u16(4)), widthUnit: sizeUnit(u16(6)),
            yResolution: u16(8), yResolutionUnit: resolutionUnit(u16(12)), heightUnit: sizeUnit(u16(14)))
    }

    // MARK: PNG

    private mutating func readPNG(_ p: UnsafeRawBufferPointer) {
        let itxt: UInt32 = 0x6954_5874, iccp: UInt32 = 0x6943_4350
        for chunk in PNGChunk.scan(p).chunks {
            let payload = UnsafeRawBufferPointer(rebasing: p[chunk.data])
            switch chunk.type {
            case PNGChunk.exif where exif == nil: exif = Array(payload)
            case iccp where iccProfile == nil: iccProfile = PNGColorChunks.iccProfile(payload)
            case itxt where xmp == nil && Self.starts(payload, "XML:com.adobe.xmp\0"): xmp = Self.iTXtText(payload)
            default: break
            }
        }
    }

    /// The text of an `iTXt` chunk: keyword, NUL, compression flag and method, language
    /// tag, NUL, translated keyword, NUL, then the (possibly zlib-compressed) text.
    private static func iTXtText(_ p: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let keywordEnd = p.firstIndex(of: 0), keywordEnd + 3 < p.count else { return nil }
        let compressed = p[keywordEnd + 1] == 1
        guard let languageEnd = p[(keywordEnd + 3)...].firstIndex(of: 0),
              let translatedEnd = p[(languageEnd + 1)...].firstIndex(of: 0) else { return nil }
        let text = UnsafeRawBufferPointer(rebasing: p[(translatedEnd + 1)...])
        guard compressed else { return Array(text) }
        var count = 0
        guard let start = text.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let inflated = cpng_inflate(start, text.count, 16 << 20, &count) else { return nil }
        defer { cpng_free(inflated) }
        return Array(UnsafeBufferPointer(start: inflated, count: count))
    }

    // MARK: WebP

    private mutating func readWebP(_ p: UnsafeRawBufferPointer) {
        var i = 12
        while i + 8 <= p.count {
            let size = Int(p[i + 4]) | Int(p[i + 5]) << 8 | Int(p[i + 6]) << 16 | Int(p[i + 7]) << 24
            guard size >= 0, i + 8 + size <= p.count else { break }
            let body = Array(p[(i + 8)..<(i + 8 + size)])
            switch String(decoding: p[i..<(i + 4)], as: UTF8.self) {
            case "EXIF": exif = body
            case "XMP ": xmp = body
            case "ICCP": iccProfile = body
            default: break
            }
            i += 8 + size + size % 2
        }
    }

    static func starts(_ p: UnsafeRawBufferPointer, _ prefix: String) -> Bool {
        let bytes = Array(prefix.utf8)
        return p.count >= bytes.count && zip(p, bytes).allSatisfy { $0 == $1 }
    }
}
