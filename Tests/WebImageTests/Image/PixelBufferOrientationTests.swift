import Testing
@testable import WebImageCodecs

/// `oriented(_:)` and the JPEG decoder's strip-wise turning against a plain per-pixel map.
@Suite("Pixel buffer orientation")
struct PixelBufferOrientationTests {
    /// A buffer whose every pixel is distinct: (x, y, x ^ y, 255 - y).
    static func numbered(width: Int, height: Int) -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { bytes += [UInt8(x & 255), UInt8(y & 255), UInt8((x ^ y) & 255), UInt8(255 - (y & 255))] }
        }
        return PixelBuffer(width: width, height: height, bytes: bytes)!
    }

    /// The stored pixel shown at upright (dx, dy), straight from the EXIF definitions.
    static func stored(_ o: Orientation, dx: Int, dy: Int, w: Int, h: Int) -> (Int, Int) {
        switch o {
        case .up: (dx, dy)
        case .upMirrored: (w - 1 - dx, dy)
        case .down: (w - 1 - dx, h - 1 - dy)
        case .downMirrored: (dx, h - 1 - dy)
        case .leftMirrored: (dy, dx)
        case .right: (dy, h - 1 - dx)
        case .rightMirrored: (w - 1 - dy, h - 1 - dx)
        case .left: (w - 1 - dy, dx)
        }
    }

    @Test("every orientation puts every pixel where EXIF says", arguments: Orientation.allCases)
    func orientation(_ o: Orientation) {
        // Sides that are not multiples of the 16-row strips or 64-column blocks.
        let w = 131, h = 37
        let source = Self.numbered(width: w, height: h)
        let turned = source.oriented(o)
        #expect(turned.width == (o.swapsDimensions ? h : w))
        #expect(turned.height == (o.swapsDimensions ? w : h))
        var wrong = 0
        for dy in 0..<turned.height {
            for dx in 0..<turned.width {
                let (x, y) = Self.stored(o, dx: dx, dy: dy, w: w, h: h)
                if turned[dx, dy] != source[x, y] { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }

    @Test("a JPEG turned while decoding equals the stored decode turned afterwards")
    func jpegTurnsWhileDecoding() throws {
        let data = try Corpus.data("jpeg/large/dog_exif_extended_xmp_icc.jpg")
        let upright = try JPEGCoder().decode(data, options: ImageDecodeOptions())
        let stored = try JPEGCoder().decode(data, options: ImageDecodeOptions(applyOrientation: false))
        #expect(upright.orientation == .right)
        #expect(upright.pixels == stored.pixels.oriented(.right))
    }
}
