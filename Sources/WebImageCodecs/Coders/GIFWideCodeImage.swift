import CGIF

/// An image whose LZW minimum code size is 9 to 11, which giflib refuses: its descriptor
/// and colour map are read here and its pixels decoded by ``GIFLZWDecoder``.
struct GIFWideCodeImage {
    let rect: GIFFrameRect
    let isInterlaced: Bool
    let localColors: [GIFDecoder.GIFColor]?
    let minimumCodeSize: Int
    /// Offset of the first data sub-block.
    let dataOffset: Int

    /// Reads the descriptor at `offset` (just after the `,`); `nil` when it is incomplete
    /// or its code size is one giflib handles.
    init?(_ bytes: [UInt8], descriptorAt offset: Int) {
        guard offset >= 0, offset + 9 <= bytes.count else { return nil }
        func word(_ i: Int) -> Int { Int(bytes[offset + i]) | Int(bytes[offset + i + 1]) << 8 }
        let flags = bytes[offset + 8]
        let colorCount = flags & 0x80 != 0 ? 2 << Int(flags & 0x07) : 0
        let codeSizeAt = offset + 9 + colorCount * 3
        guard codeSizeAt < bytes.count, (9...11).contains(Int(bytes[codeSizeAt])) else { return nil }
        rect = GIFFrameRect(left: word(0), top: word(2), width: word(4), height: word(6))
        isInterlaced = flags & 0x40 != 0
        localColors = colorCount == 0 ? nil : (0..<colorCount).map { i in
            let c = offset + 9 + i * 3
            return GIFDecoder.GIFColor(r: bytes[c], g: bytes[c + 1], b: bytes[c + 2])
        }
        minimumCodeSize = Int(bytes[codeSizeAt])
        dataOffset = codeSizeAt + 1
    }

    /// Draws the image on `canvas` with `lzw` and moves `reader` past its data. Like
    /// browsers, a stream that ends early draws the rows it completed, and the codes after
    /// the last pixel are not read. Returns the error that stopped it, or `nil`.
    func draw(on canvas: inout GIFCanvas, control: GraphicsControlBlock, globalColors: [GIFDecoder.GIFColor]?,
              reader: GIFDataReader, lzw: GIFLZWDecoder) -> WebImageError? {
        canvas.beginFrame(rect: rect, disposalMode: control.DisposalMode)
        guard rect.width > 0, rect.height > 0 else { return .badImageData("Invalid LZW code") }
        let outcome = reader.bytes.withUnsafeBufferPointer { bytes in
            lzw.decode(bytes, from: dataOffset, minimumCodeSize: minimumCodeSize, pixelCount: rect.width * rect.height,
                       checksTrailingCodes: false)
        }
        switch outcome {
        case .ended(let end, let pixels):
            let palette = GIFDecoder.palette(localColors ?? globalColors, transparent: Int(control.TransparentColor))
            palette.withUnsafeBufferPointer { colors in
                canvas.drawFrame(UnsafeBufferPointer(lzw.indices), rowCount: pixels / rect.width, rect: rect,
                                 isInterlaced: isInterlaced, palette: colors)
            }
            reader.skip(to: end)
            return nil
        case .truncated:
            return .badImageData("Truncated pixel data")
        case .corrupt:
            return .badImageData("Invalid LZW code")
        }
    }
}
