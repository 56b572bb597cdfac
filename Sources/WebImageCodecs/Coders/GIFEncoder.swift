import CGIF
import Foundation

/// Writes frames as a GIF89a with giflib's `EGifOpen` into memory.
///
/// Each frame is quantized on its own (``GIFQuantizer``) and stored full-canvas with a
/// local colour map. Animated frames are disposed to background, so each one shows
/// exactly its own pixels even where they are transparent. Runs on the caller's thread.
enum GIFEncoder {
    static func encode(frames: [ImageFrame], loopCount: Int) throws(WebImageError) -> Data {
        try encode(count: frames.count, loopCount: loopCount) { frames[$0] }
    }

    /// Encodes `count` frames, asking `frame` for each in order when it is written, so a
    /// caller decoding frames on demand holds one at a time (``AnimatedImage/encoded(as:options:)``).
    /// Every frame must have the first one's size.
    static func encode(
        count: Int, loopCount: Int, frame: (Int) throws(WebImageError) -> ImageFrame
    ) throws(WebImageError) -> Data {
        guard count > 0 else { throw .init(.encodingFailed, "No frames to encode") }
        var pending: ImageFrame? = try frame(0)
        let width = pending?.pixels.width ?? 0, height = pending?.pixels.height ?? 0
        guard (1...65535).contains(width), (1...65535).contains(height) else {
            throw .init(.encodingFailed, "GIF cannot store a \(width)x\(height) image")
        }
        let writer = GIFDataWriter()
        // giflib writes through `writer` until the handle is closed, on every path.
        defer { withExtendedLifetime(writer) {} }
        var error: Int32 = 0
        guard let gif = writer.open(&error) else {
            throw .init(.encodingFailed, "giflib could not start: \(GIFDataReader.describe(error))")
        }
        var isOpen = true
        defer { if isOpen { EGifCloseFile(gif, nil) } }
        EGifSetGifVersion(gif, true)
        try check(gif, EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, nil))
        let animated = count > 1
        if animated && loopCount != 1 {
            try putLoopExtension(gif, loopCount: loopCount)
        }
        for index in 0..<count {
            let next: ImageFrame
            if let ready = pending.take() { next = ready } else { next = try frame(index) }
            guard next.pixels.width == width, next.pixels.height == height else {
                throw .init(.encodingFailed, "Frame \(index) is \(next.pixels.width)x\(next.pixels.height), not \(width)x\(height)")
            }
            try putFrame(gif, frame: next, animated: animated)
        }
        isOpen = false
        guard EGifCloseFile(gif, &error) == GIF_OK else {
            throw .init(.encodingFailed, "giflib could not finish: \(GIFDataReader.describe(error))")
        }
        return writer.data
    }

    private static func putLoopExtension(_ gif: UnsafeMutablePointer<GifFileType>, loopCount: Int) throws(WebImageError) {
        let loops = min(max(loopCount, 0), 65535)
        let name = Array("NETSCAPE2.0".utf8)
        let count: [UInt8] = [1, UInt8(loops & 0xFF), UInt8(loops >> 8)]
        try check(gif, EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE))
        try check(gif, EGifPutExtensionBlock(gif, Int32(name.count), name))
        try check(gif, EGifPutExtensionBlock(gif, Int32(count.count), count))
        try check(gif, EGifPutExtensionTrailer(gif))
    }

    private static func putFrame(_ gif: UnsafeMutablePointer<GifFileType>, frame: ImageFrame, animated: Bool) throws(WebImageError) {
        let width = frame.pixels.width, height = frame.pixels.height
        var quantized = GIFQuantizer.quantize(frame.pixels)
        if animated || quantized.transparentIndex != nil {
            let centiseconds = animated ? Int32(min(max((frame.duration * 100).rounded(), 0), 65535)) : 0
            var control = GraphicsControlBlock(
                DisposalMode: animated ? DISPOSE_BACKGROUND : DISPOSAL_UNSPECIFIED, UserInputFlag: false,
                DelayTime: centiseconds, TransparentColor: Int32(quantized.transparentIndex ?? -1))
            var bytes = [GifByteType](repeating: 0, count: 4)
            let length = EGifGCBToExtension(&control, &bytes)
            try check(gif, EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), bytes))
        }
        let entries = quantized.colors.count + (quantized.transparentIndex == nil ? 0 : 1)
        var mapSize = 2
        while mapSize < entries { mapSize *= 2 }
        var colors = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: mapSize)
        for (i, c) in quantized.colors.enumerated() { colors[i] = GifColorType(Red: c.r, Green: c.g, Blue: c.b) }
        guard let map = GifMakeMapObject(Int32(mapSize), colors) else {
            throw .init(.encodingFailed, "giflib could not make a colour map")
        }
        defer { GifFreeMapObject(map) }
        try check(gif, EGifPutImageDesc(gif, 0, 0, Int32(width), Int32(height), false, map))
        try quantized.indices.withUnsafeMutableBufferPointer { (rows) throws(WebImageError) in
            guard let base = rows.baseAddress else { throw .init(.encodingFailed, "Empty frame") }
            for y in 0..<height {
                try check(gif, EGifPutLine(gif, base + y * width, Int32(width)))
            }
        }
    }

    private static func check(_ gif: UnsafeMutablePointer<GifFileType>, _ status: Int32) throws(WebImageError) {
        guard status == GIF_OK else {
            throw .init(.encodingFailed, "giflib failed: \(GIFDataReader.describe(gif.pointee.Error))")
        }
    }
}
