/// Decoding the frames and composing them onto the canvas.
extension APNGReader {
    /// Decodes the frames through libpng and composes them as the APNG spec says.
    ///
    /// The pixel limit counts canvas × frames and is checked before any pixels exist.
    func decode(_ p: UnsafeRawBufferPointer, options: ImageDecodeOptions, orientation: Orientation) throws -> DecodedImage {
        let count = options.firstFrameOnly ? 1 : frames.count
        try options.checkPixelLimit(width: width, height: height, frames: count)
        var compositor = APNGCompositor(width: width, height: height)
        var result: [ImageFrame] = []
        result.reserveCapacity(count)
        let color = PNGCoder.colorSource(in: p, chunks: PNGChunk.scan(p).chunks, options: options)
        for index in 0..<count {
            try compositor.advance(self, in: p) { canvas in
                result.append(ImageFrame(
                    pixels: PNGCoder.finish(canvas, orientation: orientation, options: options, color: color),
                    duration: frames[index].control.duration))
            }
        }
        guard let image = DecodedImage(
            frames: result, format: .apng, loopCount: loopCount, scale: options.scale, orientation: orientation)
        else { throw WebImageError.badImageData("APNG: no frames") }
        return image
    }

    /// Decodes frame `index` at its own size through libpng.
    func framePixels(_ index: Int, in p: UnsafeRawBufferPointer) throws -> PixelBuffer {
        let control = frames[index].control
        let stream = frameStream(index, in: p)
        return try stream.withUnsafeBytes { frame in
            try PNGStillDecoder.decode(frame) { w, h in
                guard w == control.width, h == control.height else {
                    throw WebImageError.badImageData("APNG: frame \(index) has the wrong size")
                }
            }
        }
    }

    /// Copies `frame` onto the canvas at its offset: replacing (source) or alpha-blending (over)
    /// in non-premultiplied RGBA.
    static func draw(_ frame: PixelBuffer, onto canvas: inout PixelBuffer, at c: FrameControl, blend: Bool) {
        let canvasWidth = canvas.width
        let rowBytes = c.width * 4
        canvas.bytes.withUnsafeMutableBufferPointer { dst in
            frame.bytes.withUnsafeBufferPointer { src in
                for row in 0..<c.height {
                    let d0 = ((c.y + row) * canvasWidth + c.x) * 4
                    let s0 = row * rowBytes
                    if !blend {
                        _ = UnsafeMutableBufferPointer(rebasing: dst[d0..<(d0 + rowBytes)])
                            .update(fromContentsOf: UnsafeBufferPointer(rebasing: src[s0..<(s0 + rowBytes)]))
                        continue
                    }
                    var i = 0
                    while i < rowBytes {
                        let s = s0 + i, d = d0 + i
                        i += 4
                        let sa = Int(src[s + 3])
                        if sa == 0 { continue }
                        if sa == 255 {
                            dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]; dst[d + 3] = 255
                            continue
                        }
                        // Weights in units of 1/255²: source alpha, then what shows of the destination.
                        let ws = sa * 255
                        let wd = Int(dst[d + 3]) * (255 - sa)
                        let total = ws + wd
                        let half = total / 2
                        dst[d] = UInt8((Int(src[s]) * ws + Int(dst[d]) * wd + half) / total)
                        dst[d + 1] = UInt8((Int(src[s + 1]) * ws + Int(dst[d + 1]) * wd + half) / total)
                        dst[d + 2] = UInt8((Int(src[s + 2]) * ws + Int(dst[d + 2]) * wd + half) / total)
                        dst[d + 3] = UInt8((total + 127) / 255)
                    }
                }
            }
        }
    }

    /// The frame's rectangle of the canvas, for dispose "previous".
    static func region(of canvas: PixelBuffer, _ c: FrameControl) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(c.width * c.height * 4)
        for row in 0..<c.height {
            let start = ((c.y + row) * canvas.width + c.x) * 4
            out.append(contentsOf: canvas.bytes[start..<(start + c.width * 4)])
        }
        return out
    }

    static func restore(_ saved: [UInt8], into canvas: inout PixelBuffer, _ c: FrameControl) {
        let rowBytes = c.width * 4
        for row in 0..<c.height {
            let start = ((c.y + row) * canvas.width + c.x) * 4
            canvas.bytes.replaceSubrange(start..<(start + rowBytes), with: saved[(row * rowBytes)..<((row + 1) * rowBytes)])
        }
    }

    static func clear(_ canvas: inout PixelBuffer, _ c: FrameControl) {
        let canvasWidth = canvas.width
        canvas.bytes.withUnsafeMutableBufferPointer { dst in
            for row in 0..<c.height {
                let start = ((c.y + row) * canvasWidth + c.x) * 4
                UnsafeMutableBufferPointer(rebasing: dst[start..<(start + c.width * 4)]).update(repeating: 0)
            }
        }
    }
}
