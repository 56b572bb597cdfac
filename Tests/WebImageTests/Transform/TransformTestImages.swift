@testable import WebImage
@testable import WebImageCodecs

/// Synthetic images for transformer tests; no codecs involved.
enum TransformTestImages {
    static let red = RGBA(r: 255, g: 0, b: 0)
    static let clear = RGBA(r: 0, g: 0, b: 0, a: 0)

    /// A buffer of one colour.
    static func filled(_ width: Int, _ height: Int, _ color: RGBA) -> PixelBuffer {
        PixelBuffer(width: width, height: height) { p in
            var i = 0
            while i < p.count {
                p[i] = color.r; p[i + 1] = color.g; p[i + 2] = color.b; p[i + 3] = color.a
                i += 4
            }
        }
    }

    /// An opaque buffer whose pixel (x, y) is (x, y, 7): every pixel tells where it came from.
    static func coordinates(_ width: Int, _ height: Int) -> PixelBuffer {
        precondition(width <= 256 && height <= 256)
        return PixelBuffer(width: width, height: height) { p in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    p[i] = UInt8(x); p[i + 1] = UInt8(y); p[i + 2] = 7; p[i + 3] = 255
                }
            }
        }
    }

    /// `pixels` with one pixel changed.
    static func setting(_ pixels: PixelBuffer, _ x: Int, _ y: Int, _ color: RGBA) -> PixelBuffer {
        var p = pixels
        let i = (y * p.width + x) * 4
        p.bytes[i] = color.r; p.bytes[i + 1] = color.g; p.bytes[i + 2] = color.b; p.bytes[i + 3] = color.a
        return p
    }

    static func still(_ pixels: PixelBuffer) -> DecodedImage {
        DecodedImage(pixels: pixels, format: .png)
    }

    /// A three-frame animation, frame k filled with grey level 50 * (k + 1).
    static func animated(_ width: Int = 8, _ height: Int = 6) -> DecodedImage? {
        var frames: [ImageFrame] = []
        for k in 1...3 {
            let grey = RGBA(r: UInt8(50 * k), g: 0, b: 0)
            frames.append(ImageFrame(pixels: filled(width, height, grey), duration: 0.1 * Double(k)))
        }
        return DecodedImage(frames: frames, format: .gif, loopCount: 2)
    }
}
