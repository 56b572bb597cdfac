import CGIF

/// Steps through a GIF's images one at a time with giflib's low-level API, composing each
/// on a ``GIFCanvas``: the engine under the eager ``GIFDecoder`` and the lazy
/// ``GIFAnimationDecoder``.
///
/// Owns its giflib handle (closed when the walker goes away) and its reader. giflib
/// records every image descriptor it reads, so a walker is never rewound: going back
/// means a new walker, started at a record offset found by ``GIFAnimationScan``.
/// Used by one thread at a time.
final class GIFFrameWalker {
    /// What one call to ``next()`` reached.
    enum Step {
        /// An image was drawn; ``pixels`` is the composed canvas. Carries the graphic
        /// control that applied to it.
        case frame(GraphicsControlBlock)
        /// The trailer.
        case end
        /// The data ended or turned corrupt. `isTruncated`: it ended inside a block.
        case stopped(WebImageError, isTruncated: Bool)
    }

    let width: Int
    let height: Int
    let reader: GIFDataReader
    /// The first NETSCAPE2.0/ANIMEXTS1.0 loop count read so far.
    private(set) var loopCount: Int?
    /// Images begun, counting those before the start offset.
    private(set) var imageCount: Int
    private let gif: UnsafeMutablePointer<GifFileType>
    private let options: ImageDecodeOptions
    /// Allocated with the first image, once the limits allowed it.
    private var canvas: GIFCanvas?
    private var control = GIFDecoder.noControl
    private let lzw = GIFLZWDecoder()
    /// Set when the canvas was handed out to be kept: the next image is drawn on a fresh copy.
    private var isCanvasKept = false

    /// Opens `bytes` and checks the canvas against the pixel limit. With `start`, the walk
    /// begins at that record offset (a keyframe's) as image number `start.imageIndex`, on
    /// a transparent canvas.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for an unreadable header or an empty
    ///   canvas, ``WebImageError/Code/imageTooLarge`` for a canvas over the limit.
    init(bytes: [UInt8], options: ImageDecodeOptions, start: (offset: Int, imageIndex: Int)? = nil) throws(WebImageError) {
        reader = GIFDataReader(bytes: bytes)
        let gif = try reader.open()
        let width = Int(gif.pointee.SWidth), height = Int(gif.pointee.SHeight)
        do throws(WebImageError) {
            guard width > 0, height > 0 else { throw .badImageData("The GIF canvas is \(width)x\(height)") }
            try options.checkPixelLimit(width: width, height: height)
        } catch {
            DGifCloseFile(gif, nil)
            throw error
        }
        self.gif = gif
        self.width = width
        self.height = height
        self.options = options
        imageCount = start?.imageIndex ?? 0
        if let start { reader.skip(to: start.offset) }
    }

    deinit {
        DGifCloseFile(gif, nil)
    }

    /// The composed canvas after the last image drawn (transparent before the first).
    var pixels: PixelBuffer {
        canvas?.pixels ?? PixelBuffer(width: width, height: height)
    }

    /// ``pixels``, for a caller that keeps every frame: the next image is drawn on a copy
    /// made by ``FrameStorage/freshCopy(of:)`` instead of by copy-on-write.
    func keptPixels() -> PixelBuffer {
        isCanvasKept = canvas != nil
        return pixels
    }

    /// Reads records up to and including the next image and draws it.
    ///
    /// - Throws: ``WebImageError/Code/imageTooLarge`` when this image takes canvas ×
    ///   images, or the image's own extent, over the pixel limit.
    func next() throws(WebImageError) -> Step {
        while true {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &type) == GIF_OK else {
                return .stopped(failure("Truncated or corrupt GIF after \(imageCount) images"), isTruncated: false)
            }
            switch type {
            case IMAGE_DESC_RECORD_TYPE:
                // Limits first, from the raw descriptor: giflib allocates once it reads it.
                imageCount += 1
                try options.checkPixelLimit(width: width, height: height, frames: imageCount)
                if let extent = GIFDecoder.declaredExtent(reader.bytes, descriptorAt: reader.offset) {
                    try options.checkPixelLimit(width: extent.width, height: extent.height)
                }
                var current = canvas ?? GIFCanvas(width: width, height: height)
                canvas = nil  // keep the pixels uniquely referenced while drawing
                current.isKeptElsewhere = isCanvasKept
                isCanvasKept = false
                let drawn = decodeImage(on: &current, control: control)
                canvas = current
                let used = control
                control = GIFDecoder.noControl
                if let error = drawn {
                    let reason = error.code == .badImageData ? .badImageData("Image \(imageCount): \(error.message)") : error
                    return .stopped(reason, isTruncated: reader.offset >= reader.bytes.count)
                }
                return .frame(used)
            case EXTENSION_RECORD_TYPE:
                guard readExtension() else {
                    return .stopped(failure("Truncated or corrupt GIF extension"),
                                    isTruncated: reader.offset >= reader.bytes.count)
                }
            case TERMINATE_RECORD_TYPE:
                return .end
            default:
                return .stopped(.badImageData("Unknown GIF record"), isTruncated: false)
            }
        }
    }

    /// Decodes the image whose descriptor starts at the reader's position onto `canvas`:
    /// its descriptor through giflib (or, for code sizes giflib refuses, through
    /// ``GIFWideCodeImage``), its pixels through `lzw`. Returns the error that stopped it,
    /// or `nil` when all its rows were read.
    private func decodeImage(on canvas: inout GIFCanvas, control: GraphicsControlBlock) -> WebImageError? {
        if let wide = GIFWideCodeImage(reader.bytes, descriptorAt: reader.offset) {
            return wide.draw(on: &canvas, control: control, globalColors: GIFDecoder.colors(of: gif.pointee.SColorMap),
                             reader: reader, lzw: lzw)
        }
        guard DGifGetImageDesc(gif) == GIF_OK else { return failure("Unreadable image descriptor") }
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
            let palette = GIFDecoder.palette(
                GIFDecoder.colors(of: desc.ColorMap) ?? GIFDecoder.colors(of: gif.pointee.SColorMap),
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
    private func readExtension() -> Bool {
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

    /// The error giflib recorded, as a `badImageData` with `context`.
    private func failure(_ context: String) -> WebImageError {
        .badImageData("\(context) (\(GIFDataReader.describe(gif.pointee.Error)))")
    }
}
