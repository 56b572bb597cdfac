import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("PixelBuffer: orientation and resampling")
struct PixelBufferTests {
    /// A 3×2 image whose pixels are all different: red channel = index.
    static let sample: PixelBuffer = {
        var bytes: [UInt8] = []
        for i in 0..<6 { bytes += [UInt8(i), 0, 0, 255] }
        return PixelBuffer(width: 3, height: 2, bytes: bytes)!
    }()

    static func reds(_ p: PixelBuffer) -> [UInt8] { stride(from: 0, to: p.bytes.count, by: 4).map { p.bytes[$0] } }

    @Test("each EXIF orientation turns the stored pixels upright", arguments: [
        (Orientation.up, 3, [0, 1, 2, 3, 4, 5]),
        (.upMirrored, 3, [2, 1, 0, 5, 4, 3]),
        (.down, 3, [5, 4, 3, 2, 1, 0]),
        (.downMirrored, 3, [3, 4, 5, 0, 1, 2]),
        (.leftMirrored, 2, [0, 3, 1, 4, 2, 5]),
        (.right, 2, [3, 0, 4, 1, 5, 2]),
        (.rightMirrored, 2, [5, 2, 4, 1, 3, 0]),
        (.left, 2, [2, 5, 1, 4, 0, 3]),
    ])
    func orientation(orientation: Orientation, width: Int, expected: [UInt8]) {
        let out = Self.sample.oriented(orientation)
        #expect(out.width == width)
        #expect(out.height == 6 / width)
        #expect(Self.reds(out) == expected)
    }

    @Test("downscaling a one-pixel checkerboard gives flat grey, not aliasing")
    func checkerboard() {
        let size = 64
        let board = PixelBuffer(width: size, height: size) { p in
            for y in 0..<size {
                for x in 0..<size {
                    let v: UInt8 = (x + y) % 2 == 0 ? 255 : 0
                    let i = (y * size + x) * 4
                    p[i] = v; p[i + 1] = v; p[i + 2] = v; p[i + 3] = 255
                }
            }
        }
        for target in [32, 25, 17, 7] {
            let out = board.resampled(width: target, height: target)
            #expect(out.width == target && out.height == target)
            let reds = Self.reds(out)
            let spread = Int(reds.max()!) - Int(reds.min()!)
            // Exact area averaging keeps every output pixel near 50% grey.
            #expect(spread <= 40, "target \(target): values from \(reds.min()!) to \(reds.max()!)")
            #expect(abs(Int(reds[reds.count / 2]) - 128) <= 20)
        }
    }

    @Test("transparent pixels do not darken their opaque neighbours")
    func alphaWeighted() {
        // White opaque next to black fully transparent.
        let p = PixelBuffer(width: 2, height: 1, bytes: [255, 255, 255, 255, 0, 0, 0, 0])!
        let out = p.resampled(width: 1, height: 1)
        #expect(out.bytes == [255, 255, 255, 128])
    }

    @Test("upscaling keeps corners and size")
    func upscale() {
        let out = Self.sample.resampled(width: 9, height: 4)
        #expect(out.width == 9 && out.height == 4)
        #expect(out[0, 0]?.r == 0)
        #expect(out[8, 3]?.r == 5)
    }

    @Test("byte count overflow is reported, not trapped")
    func overflow() {
        #expect(PixelBuffer.byteCount(width: .max / 2, height: 3) == nil)
        #expect(PixelBuffer(width: 2, height: 2, bytes: [1, 2, 3]) == nil)
    }
}

@Suite("ImageDecodeOptions target sizes")
struct ImageDecodeOptionsTests {
    @Test("a 5250×3450 image to 400×300 keeping aspect gives 400×263")
    func aspectFit() {
        let o = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 400, height: 300))
        #expect(o.targetSize(for: PixelSize(width: 5250, height: 3450)) == PixelSize(width: 400, height: 263))
    }

    @Test("thumbnails never scale up; without aspect they fill")
    func noUpscale() {
        var o = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 400, height: 300))
        #expect(o.targetSize(for: PixelSize(width: 200, height: 100)) == PixelSize(width: 200, height: 100))
        o.preserveAspectRatio = false
        #expect(o.targetSize(for: PixelSize(width: 5250, height: 3450)) == PixelSize(width: 400, height: 300))
    }

    @Test("scale-down limit bounds the pixel bytes")
    func scaleDown() {
        let o = ImageDecodeOptions(scaleDownLimitBytes: 1_000_000)
        let t = o.targetSize(for: PixelSize(width: 4000, height: 3000))
        #expect(t.width * t.height * 4 <= 1_000_000)
        #expect(t.width * t.height * 4 > 900_000)
        #expect(o.targetSize(for: PixelSize(width: 100, height: 100)) == PixelSize(width: 100, height: 100))
    }

    @Test("pixel limit rejects huge headers and overflow")
    func pixelLimit() {
        let o = ImageDecodeOptions()
        #expect(throws: WebImageError.self) { try o.checkPixelLimit(width: 100_000, height: 100_000) }
        #expect(throws: WebImageError.self) { try o.checkPixelLimit(width: .max, height: .max) }
        #expect(throws: WebImageError.self) { try o.checkPixelLimit(width: 5000, height: 5000, frames: 5) }
        #expect(throws: Never.self) { try o.checkPixelLimit(width: 5000, height: 5000) }
    }
}
