/// The animation of an APNG, read from its `acTL`, `fcTL` and `fdAT` chunks.
///
/// The system libpng skips these chunks, so this reader finds each frame's data, and
/// ``frameStream(_:in:)`` wraps it into a standalone PNG (the frame's size in `IHDR`,
/// the shared `PLTE`/`tRNS`, the data as `IDAT`) for libpng to decode. Every chunk it
/// uses must have a correct CRC, because rewrapping would otherwise hide corruption.
struct APNGReader {
    /// The numbers of one `fcTL` chunk.
    struct FrameControl {
        var width: Int
        var height: Int
        var x: Int
        var y: Int
        /// Display time in seconds (`delay_num / delay_den`, a zero denominator meaning 100).
        var duration: Double
        /// 0 none, 1 background, 2 previous.
        var dispose: UInt8
        /// 0 source, 1 over.
        var blend: UInt8
    }

    /// One frame: its control and the ranges of its compressed data in the file.
    struct Frame {
        var control: FrameControl
        var data: [Range<Int>] = []
    }

    static let disposeNone: UInt8 = 0
    static let disposeBackground: UInt8 = 1
    static let disposePrevious: UInt8 = 2
    static let blendSource: UInt8 = 0

    /// Canvas size from `IHDR`.
    let width: Int
    let height: Int
    /// `acTL` plays: 0 means forever.
    let loopCount: Int
    /// The frames of the animation, in order. Never empty.
    private(set) var frames: [Frame]
    private let ihdr: PNGChunk
    private let shared: [PNGChunk]

    /// Reads the animation, or returns `nil` for a still PNG (no `acTL` before the
    /// first `IDAT`, or no frame with data), which libpng then decodes as a whole.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` when an APNG chunk is malformed,
    ///   has a bad CRC, or puts a frame outside the canvas.
    init?(_ p: UnsafeRawBufferPointer, chunks: [PNGChunk]) throws {
        guard let ihdr = chunks.first, ihdr.type == PNGChunk.ihdr, ihdr.data.count == 13,
              let actlIndex = chunks.firstIndex(where: { $0.type == PNGChunk.actl || $0.type == PNGChunk.idat }),
              chunks[actlIndex].type == PNGChunk.actl
        else { return nil }
        let actl = chunks[actlIndex]
        guard actl.data.count == 8, actl.hasValidCRC(in: p), ihdr.hasValidCRC(in: p) else {
            throw WebImageError.badImageData("APNG: bad acTL or IHDR chunk")
        }
        width = Int(PNGChunk.readUInt32(p, at: ihdr.data.lowerBound))
        height = Int(PNGChunk.readUInt32(p, at: ihdr.data.lowerBound + 4))
        loopCount = Int(PNGChunk.readUInt32(p, at: actl.data.lowerBound + 4))
        self.ihdr = ihdr

        var shared: [PNGChunk] = []
        var frames: [Frame] = []
        var seenIDAT = false
        var defaultImageIsFrame = false
        for chunk in chunks {
            switch chunk.type {
            case PNGChunk.plte where !seenIDAT, PNGChunk.trns where !seenIDAT:
                try Self.requireCRC(chunk, p)
                shared.append(chunk)
            case PNGChunk.fctl:
                try Self.requireCRC(chunk, p)
                let control = try Self.frameControl(chunk, p, canvasWidth: width, canvasHeight: height)
                if !seenIDAT { defaultImageIsFrame = true }
                frames.append(Frame(control: control))
            case PNGChunk.idat:
                try Self.requireCRC(chunk, p)
                seenIDAT = true
                if defaultImageIsFrame, frames.count == 1 { frames[0].data.append(chunk.data) }
            case PNGChunk.fdat:
                try Self.requireCRC(chunk, p)
                guard chunk.data.count > 4, seenIDAT, !frames.isEmpty, !(defaultImageIsFrame && frames.count == 1) else {
                    throw WebImageError.badImageData("APNG: fdAT chunk without its frame control")
                }
                // Skip the sequence number.
                frames[frames.count - 1].data.append((chunk.data.lowerBound + 4)..<chunk.data.upperBound)
            default:
                break
            }
        }
        // An fcTL with no data after it has nothing to show.
        frames.removeAll { $0.data.isEmpty }
        guard !frames.isEmpty else { return nil }
        self.frames = frames
        self.shared = shared
    }

    /// Forgets the last frame (one whose data may be cut short); `false` when it is the only one.
    mutating func dropLastFrame() -> Bool {
        guard frames.count > 1 else { return false }
        frames.removeLast()
        return true
    }

    /// A standalone PNG holding frame `index` as its only image.
    func frameStream(_ index: Int, in p: UnsafeRawBufferPointer) -> [UInt8] {
        let frame = frames[index]
        var out = PNGChunk.signature
        out.reserveCapacity(frame.data.reduce(256) { $0 + $1.count } + shared.reduce(0) { $0 + $1.whole.count })
        var header: [UInt8] = []
        PNGChunk.appendUInt32(UInt32(frame.control.width), to: &header)
        PNGChunk.appendUInt32(UInt32(frame.control.height), to: &header)
        header.append(contentsOf: p[(ihdr.data.lowerBound + 8)..<ihdr.data.upperBound])
        header.withUnsafeBytes { PNGChunk.append(type: PNGChunk.ihdr, data: $0, to: &out) }
        for chunk in shared { out.append(contentsOf: p[chunk.whole]) }
        var idat: [UInt8] = []
        idat.reserveCapacity(frame.data.reduce(0) { $0 + $1.count })
        for range in frame.data { idat.append(contentsOf: p[range]) }
        idat.withUnsafeBytes { PNGChunk.append(type: PNGChunk.idat, data: $0, to: &out) }
        PNGChunk.append(type: PNGChunk.iend, data: UnsafeRawBufferPointer(start: nil, count: 0), to: &out)
        return out
    }

    private static func requireCRC(_ chunk: PNGChunk, _ p: UnsafeRawBufferPointer) throws {
        guard chunk.hasValidCRC(in: p) else {
            throw WebImageError.badImageData("APNG: CRC error in chunk at offset \(chunk.start)")
        }
    }

    private static func frameControl(
        _ chunk: PNGChunk, _ p: UnsafeRawBufferPointer, canvasWidth: Int, canvasHeight: Int
    ) throws -> FrameControl {
        guard chunk.data.count == 26 else { throw WebImageError.badImageData("APNG: fcTL chunk of wrong length") }
        let o = chunk.data.lowerBound
        let w = Int(PNGChunk.readUInt32(p, at: o + 4)), h = Int(PNGChunk.readUInt32(p, at: o + 8))
        let x = Int(PNGChunk.readUInt32(p, at: o + 12)), y = Int(PNGChunk.readUInt32(p, at: o + 16))
        let delayNum = Int(p[o + 20]) << 8 | Int(p[o + 21])
        let delayDen = Int(p[o + 22]) << 8 | Int(p[o + 23])
        let dispose = p[o + 24], blend = p[o + 25]
        // All values are below 2^32, so these sums cannot overflow Int.
        guard w > 0, h > 0, x + w <= canvasWidth, y + h <= canvasHeight, dispose <= 2, blend <= 1 else {
            throw WebImageError.badImageData("APNG: frame \(w)x\(h) at (\(x), \(y)) outside the \(canvasWidth)x\(canvasHeight) canvas")
        }
        return FrameControl(
            width: w, height: h, x: x, y: y,
            duration: Double(delayNum) / Double(delayDen == 0 ? 100 : delayDen),
            dispose: dispose, blend: blend)
    }
}
