import Foundation

/// What an image's header says before any pixel is decoded: the format, the stored
/// size, the EXIF orientation, whether it is animated and whether it can have alpha.
///
/// Read from the first bytes and the metadata segments only (JPEG markers up to the
/// frame header, PNG chunks up to the first `IDAT`, WebP's RIFF chunks, GIF's screen
/// descriptor, the `ispe` of AVIF/HEIC), bounds-checked throughout. Planning a decode
/// from it (how far to shrink on load, how much memory) needs no pixel.
///
/// ```swift
/// if let header = ImageHeader(data) { print(header.format, header.displaySize) }
/// ```
public struct ImageHeader: Sendable, Hashable {
    public var format: ImageFormat
    /// Pixel size as stored, before the orientation.
    public var storedSize: PixelSize
    /// The EXIF orientation (`.up` when there is none or the format carries it inside
    /// the codec stream, as AVIF and HEIC do).
    public var orientation: Orientation
    /// Whether the file declares several frames (animated GIF, APNG, animated WebP).
    /// `false` when unknown (AVIF sequences, JPEG XL).
    public var isAnimated: Bool
    /// Whether the format and header allow transparency (PNG with an alpha colour type
    /// or `tRNS`, WebP with alpha, GIF, AVIF/HEIC/JXL conservatively `true`).
    public var mayHaveAlpha: Bool

    /// Bytes the decoder holds besides pixels, whatever scale it decodes at: a multi-scan
    /// JPEG (progressive, or sequential with a component per scan) is decoded through
    /// libjpeg's whole-image coefficient arrays, 128 bytes per 8×8 block of every component
    /// at its stored resolution (about 36 MB for a 12 MP 4:2:0 photo). 0 for everything else.
    public var coefficientBytes: Int = 0

    /// The size after the orientation is applied.
    public var displaySize: PixelSize {
        orientation.swapsDimensions ? PixelSize(width: storedSize.height, height: storedSize.width) : storedSize
    }

    /// Reads `data`'s header; `nil` for an unknown format or a header that is cut short
    /// or malformed. Runs on the caller's thread; reads a few kilobytes at most for the
    /// common formats.
    public init?(_ data: Data) {
        guard let header = data.withUnsafeBytes({ Self.read($0) }) else { return nil }
        self = header
    }

    init(format: ImageFormat, storedSize: PixelSize, orientation: Orientation = .up, isAnimated: Bool = false, mayHaveAlpha: Bool) {
        self.format = format
        self.storedSize = storedSize
        self.orientation = orientation
        self.isAnimated = isAnimated
        self.mayHaveAlpha = mayHaveAlpha
    }

    static func read(_ p: UnsafeRawBufferPointer) -> ImageHeader? {
        let format = ImageFormat.detect(p)
        let header: ImageHeader?
        switch format {
        case .jpeg: header = jpeg(p)
        case .png, .apng: header = png(p, format: format)
        case .gif:
            guard p.count >= 13 else { return nil }
            let size = PixelSize(width: Int(p[6]) | Int(p[7]) << 8, height: Int(p[8]) | Int(p[9]) << 8)
            header = ImageHeader(format: .gif, storedSize: size, isAnimated: GIFDecoder.declaredImageCount(p, limit: 2) > 1, mayHaveAlpha: true)
        case .webp: header = webp(p)
        case .avif, .heic, .heif:
            header = ISOBMFFImageSize.largestDeclared(in: p).map { ImageHeader(format: format, storedSize: $0, mayHaveAlpha: true) }
        default: header = nil
        }
        guard let header, header.storedSize.width > 0, header.storedSize.height > 0 else { return nil }
        return header
    }

    private static func be16(_ p: UnsafeRawBufferPointer, _ i: Int) -> Int { Int(p[i]) << 8 | Int(p[i + 1]) }

    /// Walks the marker segments to the first start-of-frame, reading APP1's orientation.
    private static func jpeg(_ p: UnsafeRawBufferPointer) -> ImageHeader? {
        var i = 2
        var orientation = Orientation.up
        while i + 9 < p.count {
            // Bytes where a marker should be are skipped to the next 0xFF, as libjpeg does
            // ("extraneous bytes before marker"): a segment whose length is one short still
            // decodes there, so it is not refused here.
            guard p[i] == 0xFF else { i += 1; continue }
            let marker = p[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            let length = be16(p, i + 2)
            guard length >= 2 else { return nil }
            // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC), which share the range.
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                var header = ImageHeader(format: .jpeg, storedSize: PixelSize(width: be16(p, i + 7), height: be16(p, i + 5)),
                                         orientation: orientation, mayHaveAlpha: false)
                header.coefficientBytes = jpegCoefficientBytes(p, frame: i, marker: marker)
                return header
            }
            if marker == 0xE1, i + 2 + length <= p.count {
                let payload = UnsafeRawBufferPointer(rebasing: p[(i + 4)..<(i + 2 + length)])
                if let found = EXIFOrientation.parse(app1: payload) { orientation = found }
            }
            i += 2 + length
        }
        return nil
    }

    /// libjpeg's whole-image coefficient arrays for the frame header at `frame`, when the
    /// image has several scans: progressive frames (SOF2, 6, 10, 14) always, sequential ones
    /// when the first scan leaves a component out (or the data ends before it, counted as
    /// multi-scan). Each component's blocks are padded to its sampling factors, as libjpeg's
    /// coefficient controller requests them.
    private static func jpegCoefficientBytes(_ p: UnsafeRawBufferPointer, frame: Int, marker: UInt8) -> Int {
        guard frame + 10 <= p.count else { return 0 }
        let height = be16(p, frame + 5), width = be16(p, frame + 7), count = Int(p[frame + 9])
        guard count > 0, frame + 10 + 3 * count <= p.count else { return 0 }
        let factors = (0..<count).map { k in (h: Int(p[frame + 11 + 3 * k] >> 4), v: Int(p[frame + 11 + 3 * k] & 15)) }
        guard factors.allSatisfy({ (1...4).contains($0.h) && (1...4).contains($0.v) }) else { return 0 }
        if ![0xC2, 0xC6, 0xCA, 0xCE].contains(marker) {
            var i = frame + 2 + be16(p, frame + 2)
            var firstScanComponents: Int?
            while i + 4 < p.count, p[i] == 0xFF {
                if p[i + 1] == 0xFF { i += 1; continue }
                if p[i + 1] == 0xDA { firstScanComponents = Int(p[i + 4]); break }
                i += 2 + be16(p, i + 2)
            }
            if let firstScanComponents, firstScanComponents >= count { return 0 }
        }
        let hMax = factors.map(\.h).max() ?? 1, vMax = factors.map(\.v).max() ?? 1
        func blocks(_ size: Int, _ factor: Int, _ maxFactor: Int, padTo: Int) -> Int {
            let exact = (size * factor + maxFactor * 8 - 1) / (maxFactor * 8)
            return (exact + padTo - 1) / padTo * padTo
        }
        return factors.reduce(0) { total, f in
            total + blocks(width, f.h, hMax, padTo: f.h) * blocks(height, f.v, vMax, padTo: f.v) * 128
        }
    }

    private static func png(_ p: UnsafeRawBufferPointer, format: ImageFormat) -> ImageHeader? {
        guard p.count >= 26 else { return nil }
        let size = PixelSize(width: Int(PNGChunk.readUInt32(p, at: 16)), height: Int(PNGChunk.readUInt32(p, at: 20)))
        let colorType = p[25]
        let chunks = PNGChunk.scan(p).chunks.prefix { $0.type != PNGChunk.idat }
        let hasTRNS = chunks.contains { $0.type == PNGChunk.trns }
        let orientation = PNGCoder.orientation(in: p, chunks: Array(chunks))
        return ImageHeader(format: format, storedSize: size, orientation: orientation, isAnimated: format == .apng,
                           mayHaveAlpha: colorType == 4 || colorType == 6 || hasTRNS)
    }

    private static func webp(_ p: UnsafeRawBufferPointer) -> ImageHeader? {
        guard let parsed = try? WebPHeader.parse(p) else { return nil }
        let orientation = parsed.hasEXIF ? WebPHeader.orientation(in: p) : .up
        let alpha = p.count > 20 && String(decoding: p[12..<16], as: UTF8.self) == "VP8X" ? parsed.flags & 0x10 != 0
            : String(decoding: p[12..<16], as: UTF8.self) == "VP8L"
        return ImageHeader(format: .webp, storedSize: parsed.size, orientation: orientation, isAnimated: parsed.isAnimated,
                           mayHaveAlpha: alpha)
    }
}
