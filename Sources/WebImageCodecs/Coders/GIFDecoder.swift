import CGIF
import Foundation

/// One GIF decode: walks the records with giflib's low-level API (no `DGifSlurp`, so
/// nothing is allocated for a frame before the pixel limit allows it) and composes the
/// frames on a ``GIFCanvas``.
///
/// Runs on the caller's thread and keeps no state between calls.
struct GIFDecoder {
    /// One palette entry.
    struct GIFColor {
        var r: UInt8
        var g: UInt8
        var b: UInt8
    }

    var options: ImageDecodeOptions
    /// Stop after this many complete frames (`nil`: all of them).
    var frameLimit: Int?

    /// What a walk produced: the complete frames, and why it stopped early, if it did.
    struct Outcome {
        var width = 0
        var height = 0
        var frames: [ImageFrame] = []
        /// 1 (play once) unless a NETSCAPE2.0/ANIMEXTS1.0 extension says otherwise.
        var loopCount = 1
        /// Set when the data ended or turned corrupt before the trailer; the frames
        /// before that point are complete and kept.
        var stopReason: WebImageError?
        /// Whether the data ended inside a block: the file was cut short, so the frames are
        /// a partial image. Data ending between blocks reads as a GIF without its trailer.
        var isTruncated = false
    }

    /// Decodes `data`.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` when there is no readable GIF header
    ///   or the canvas is empty, ``WebImageError/Code/imageTooLarge`` as soon as the canvas,
    ///   or the canvas times the frames found so far, exceeds the pixel limit.
    func decode(_ data: Data) throws(WebImageError) -> Outcome {
        let reader = GIFDataReader(data)
        let gif = try reader.open()
        defer { DGifCloseFile(gif, nil) }
        return try withExtendedLifetime(reader) { () throws(WebImageError) -> Outcome in
            try walk(gif, reader: reader)
        }
    }

    private func walk(_ gif: UnsafeMutablePointer<GifFileType>, reader: GIFDataReader) throws(WebImageError) -> Outcome {
        var outcome = Outcome()
        let width = Int(gif.pointee.SWidth), height = Int(gif.pointee.SHeight)
        guard width > 0, height > 0 else { throw .badImageData("The GIF canvas is \(width)x\(height)") }
        try options.checkPixelLimit(width: width, height: height)
        let declared = Self.declaredImageCount(reader.bytes)
        try options.checkPixelLimit(width: width, height: height, frames: min(declared, frameLimit ?? declared))
        outcome.width = width
        outcome.height = height
        let target = options.targetSize(for: PixelSize(width: width, height: height))

        var canvas: GIFCanvas?
        var control = Self.noControl
        var loopCount: Int?
        var imageCount = 0
        let lzw = GIFLZWDecoder()

        records: while true {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &type) == GIF_OK else {
                outcome.stopReason = failure(gif, "Truncated or corrupt GIF after \(imageCount) images")
                break
            }
            switch type {
            case IMAGE_DESC_RECORD_TYPE:
                // Limits first, from the raw descriptor: giflib allocates once it reads it.
                imageCount += 1
                try options.checkPixelLimit(width: width, height: height, frames: imageCount)
                if let extent = Self.declaredExtent(reader.bytes, descriptorAt: reader.offset) {
                    try options.checkPixelLimit(width: extent.width, height: extent.height)
                }
                var current = canvas ?? GIFCanvas(width: width, height: height)
                canvas = nil  // keep the pixels uniquely referenced while drawing
                let drawn = decodeImage(gif, reader: reader, on: &current, control: control, lzw: lzw)
                canvas = current
                if let error = drawn {
                    outcome.stopReason = error.code == .badImageData
                        ? .badImageData("Image \(imageCount): \(error.message)") : error
                    outcome.isTruncated = reader.offset >= reader.bytes.count
                    break records
                }
                appendFrame(current.pixels, control: control, target: target, to: &outcome)
                control = Self.noControl
                if let frameLimit, outcome.frames.count >= frameLimit { break records }
            case EXTENSION_RECORD_TYPE:
                guard readExtension(gif, control: &control, loopCount: &loopCount) else {
                    outcome.stopReason = failure(gif, "Truncated or corrupt GIF extension")
                    outcome.isTruncated = reader.offset >= reader.bytes.count
                    break records
                }
            case TERMINATE_RECORD_TYPE:
                break records
            default:
                outcome.stopReason = .badImageData("Unknown GIF record")
                break records
            }
        }
        outcome.loopCount = loopCount ?? 1
        if outcome.frames.count == 1 { outcome.frames[0].duration = 0 }
        return outcome
    }

    /// The graphic control in force for an image without one.
    static let noControl = GraphicsControlBlock(
        DisposalMode: DISPOSAL_UNSPECIFIED, UserInputFlag: false, DelayTime: 0, TransparentColor: NO_TRANSPARENT_COLOR)

    private func appendFrame(_ pixels: PixelBuffer, control: GraphicsControlBlock, target: PixelSize,
                             to outcome: inout Outcome) {
        let output = target.width == pixels.width && target.height == pixels.height
            ? pixels : pixels.resampled(width: target.width, height: target.height)
        outcome.frames.append(ImageFrame(pixels: output, duration: Self.duration(centiseconds: control.DelayTime)))
    }

    /// Decodes the image whose descriptor starts at the reader's position onto `canvas`:
    /// its descriptor through giflib (or, for code sizes giflib refuses, through
    /// ``GIFWideCodeImage``), its pixels through `lzw`. Returns the error that stopped it,
    /// or `nil` when all its rows were read.
    private func decodeImage(
        _ gif: UnsafeMutablePointer<GifFileType>,
        reader: GIFDataReader,
        on canvas: inout GIFCanvas,
        control: GraphicsControlBlock,
        lzw: GIFLZWDecoder
    ) -> WebImageError? {
        if let wide = GIFWideCodeImage(reader.bytes, descriptorAt: reader.offset) {
            return wide.draw(on: &canvas, control: control, globalColors: Self.colors(of: gif.pointee.SColorMap),
                             reader: reader, lzw: lzw)
        }
        guard DGifGetImageDesc(gif) == GIF_OK else { return failure(gif, "Unreadable image descriptor") }
        let desc = gif.pointee.Image
        let rect = GIFFrameRect(left: Int(desc.Left), top: Int(desc.Top), width: Int(desc.Width), height: Int(desc.Height))
        canvas.beginFrame(rect: rect, disposalMode: control.DisposalMode)
        // giflib has read up to and including the minimum code size byte.
        let codeStart = reader.offset
        let minimumCodeSize = codeStart > 0 ? Int(reader.bytes[codeStart - 1]) : 0
        let pixelCount = max(rect.width, 0) * max(rect.height, 0)
        // An empty image still carries (empty) LZW data, checked like any other.
        let outcome = reader.bytes.withUnsafeBufferPointer { bytes in
            lzw.decode(bytes, from: codeStart, minimumCodeSize: minimumCodeSize, pixelCount: pixelCount,
                       checksTrailingCodes: true)
        }
        switch outcome {
        case .truncated:
            reader.skip(to: reader.bytes.count)
            return .badImageData("Truncated pixel data")
        case .corrupt(let end):
            reader.skip(to: end)
            return .badImageData("Invalid LZW code")
        case .ended(_, let pixels) where pixels < pixelCount:
            return .badImageData("The LZW data ends before the image is complete")
        case .ended(let end, _):
            let palette = Self.palette(Self.colors(of: desc.ColorMap) ?? Self.colors(of: gif.pointee.SColorMap),
                                       transparent: Int(control.TransparentColor))
            palette.withUnsafeBufferPointer { colors in
                canvas.drawFrame(UnsafeBufferPointer(lzw.indices), rowCount: rect.height, rect: rect,
                                 isInterlaced: desc.Interlace, palette: colors)
            }
            reader.skip(to: end)
            return nil
        }
    }

    /// Reads one extension: graphic control (kept for the next image) and the loop count.
    /// Returns `false` when the data ended inside it.
    private func readExtension(
        _ gif: UnsafeMutablePointer<GifFileType>,
        control: inout GraphicsControlBlock,
        loopCount: inout Int?
    ) -> Bool {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetExtension(gif, &code, &block) == GIF_OK else { return false }
        var isLoopExtension = false
        if let first = block {
            let length = Int(first[0])
            if code == GRAPHICS_EXT_FUNC_CODE, length >= 4 {
                var parsed = GraphicsControlBlock()
                if DGifExtensionToGCB(4, first + 1, &parsed) == GIF_OK { control = parsed }
            } else if code == APPLICATION_EXT_FUNC_CODE, length == 11 {
                let name = String(decoding: UnsafeBufferPointer(start: first + 1, count: 11), as: UTF8.self)
                isLoopExtension = name == "NETSCAPE2.0" || name == "ANIMEXTS1.0"
            }
        }
        var sawLoop = false
        while block != nil {
            guard DGifGetExtensionNext(gif, &block) == GIF_OK else { return false }
            // Sub-block 1 of the NETSCAPE extension is the loop count; the first one found wins.
            if isLoopExtension, let sub = block, sub[0] >= 3, sub[1] == 1, loopCount == nil {
                loopCount = Int(sub[2]) | Int(sub[3]) << 8
                sawLoop = true
            }
        }
        // A loop extension without a count sub-block (only buffering hints) means forever.
        if isLoopExtension, !sawLoop, loopCount == nil { loopCount = 0 }
        return true
    }
}

extension GIFDecoder {
    /// How far right and down an image descriptor starting at `offset` reaches
    /// (left + width, top + height), if its bytes are there. Frames are clipped to the
    /// canvas, but one reaching past the pixel limit is refused like a canvas that large:
    /// decoders that grow the canvas would allocate it, and the LZW work is as large.
    static func declaredExtent(_ bytes: [UInt8], descriptorAt offset: Int) -> PixelSize? {
        guard offset >= 0, offset + 8 <= bytes.count else { return nil }
        func word(_ i: Int) -> Int { Int(bytes[offset + i]) | Int(bytes[offset + i + 1]) << 8 }
        return PixelSize(width: word(0) + word(4), height: word(2) + word(6))
    }

    /// Seconds for a GIF delay; like browsers, 0 and 1 centiseconds mean 0.1 s.
    static func duration(centiseconds: Int32) -> Double {
        let seconds = Double(max(0, centiseconds)) / 100
        return seconds < 0.011 ? 0.1 : seconds
    }

    /// 256 canvas colours (RGBA in memory order) for an image: `colors` (its local map,
    /// else the global one), else a grey ramp. Indices past the map are opaque black; the
    /// transparent index is 0 (fully transparent), which the canvas skips.
    static func palette(_ colors: [GIFColor]?, transparent: Int) -> [UInt32] {
        var table = [UInt32](repeating: Self.pack(0, 0, 0), count: 256)
        if let colors {
            for (i, c) in colors.prefix(256).enumerated() { table[i] = Self.pack(c.r, c.g, c.b) }
        } else {
            for i in 0..<256 { table[i] = Self.pack(UInt8(i), UInt8(i), UInt8(i)) }
        }
        if (0..<256).contains(transparent) { table[transparent] = 0 }
        return table
    }

    /// The colours of a giflib colour map, or `nil` for none.
    static func colors(of map: UnsafeMutablePointer<ColorMapObject>?) -> [GIFColor]? {
        guard let map, let entries = map.pointee.Colors else { return nil }
        let count = min(max(0, Int(map.pointee.ColorCount)), 256)
        return (0..<count).map { GIFColor(r: entries[$0].Red, g: entries[$0].Green, b: entries[$0].Blue) }
    }

    private static func pack(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt32 {
        (UInt32(r) | UInt32(g) << 8 | UInt32(b) << 16 | 0xFF00_0000).littleEndian
    }

    /// Canvas rows in the order the file stores them: top to bottom, or the four
    /// interlace passes (every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1).
    static func rowOrder(height: Int, interlaced: Bool) -> [Int] {
        guard interlaced else { return Array(0..<height) }
        var rows = [Int]()
        rows.reserveCapacity(height)
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            rows.append(contentsOf: stride(from: start, to: height, by: step))
        }
        return rows
    }

    /// The error giflib recorded, as a `badImageData` with `context`.
    func failure(_ gif: UnsafeMutablePointer<GifFileType>, _ context: String) -> WebImageError {
        .badImageData("\(context) (\(GIFDataReader.describe(gif.pointee.Error)))")
    }
}
