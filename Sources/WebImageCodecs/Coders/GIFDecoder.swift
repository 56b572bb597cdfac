import CGIF
import Foundation

/// One eager GIF decode: walks every image with a ``GIFFrameWalker`` (giflib's low-level
/// API, no `DGifSlurp`, so nothing is allocated for a frame before the pixel limit allows
/// it) and keeps each composed frame.
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
        let walker = try GIFFrameWalker(bytes: [UInt8](data), options: options)
        var outcome = Outcome()
        let width = walker.width, height = walker.height
        let declared = Self.declaredImageCount(walker.reader.bytes)
        try options.checkPixelLimit(width: width, height: height, frames: min(declared, frameLimit ?? declared))
        outcome.width = width
        outcome.height = height
        let target = options.targetSize(for: PixelSize(width: width, height: height))
        records: while true {
            switch try walker.next() {
            case .frame(let control):
                // Kept as is, or scaled into new storage (the canvas is then not kept).
                let isKept = target.width == width && target.height == height
                appendFrame(isKept ? walker.keptPixels() : walker.pixels, control: control, target: target,
                            to: &outcome)
                if let frameLimit, outcome.frames.count >= frameLimit { break records }
            case .end:
                break records
            case .stopped(let error, let isTruncated):
                outcome.stopReason = error
                outcome.isTruncated = isTruncated
                break records
            }
        }
        outcome.loopCount = walker.loopCount ?? 1
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
}
