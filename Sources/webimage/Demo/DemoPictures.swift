import Foundation
import WebImage

/// Pictures drawn in code for the demo gallery, so the tool ships no image files
/// beyond one small progressive JPEG.
enum DemoPictures {
    /// A landscape: sky gradient, a sun, three ranges of hills, a little grain.
    static func landscape(width: Int, height: Int) -> PixelBuffer {
        let (w, h) = (Double(width), Double(height))
        let hills: [(r: Double, g: Double, b: Double)] = [(90, 110, 120), (50, 100, 60), (30, 75, 40)]
        // The crest line of each range of hills, one height per column.
        let crests = hills.indices.map { layer in
            (0..<width).map { x in
                let l = Double(layer)
                return (0.45 + 0.1 * l) * h + h * (0.12 - 0.03 * l) * sin(Double(x) / (w * (0.08 + 0.04 * l)) + l)
            }
        }
        return PixelBuffer(width: width, height: height) { p in
            var noise: UInt32 = 0x9E37_79B9
            for y in 0..<height {
                let t = Double(y) / h
                for x in 0..<width {
                    var (r, g, b) = t < 0.55
                        ? (70 + 120 * t, 130 + 90 * t, 220 - 40 * t)
                        : (40 + 60 * (t - 0.55), 90 + 80 * (t - 0.55), 140 - 60 * (t - 0.55))
                    let (sx, sy) = (Double(x) - 0.75 * w, Double(y) - 0.22 * h)
                    if sx * sx + sy * sy < 0.0049 * w * w { (r, g, b) = (255, 225, 140) }
                    for layer in 0..<hills.count where Double(y) > crests[layer][x] {
                        (r, g, b) = hills[layer]
                    }
                    noise = noise &* 1_664_525 &+ 1_013_904_223
                    let grain = Double(noise >> 28) - 7.5
                    let i = (y * width + x) * 4
                    p[i] = UInt8(clamping: Int(r + grain))
                    p[i + 1] = UInt8(clamping: Int(g + grain))
                    p[i + 2] = UInt8(clamping: Int(b + grain))
                    p[i + 3] = 255
                }
            }
        }
    }

    /// A round badge with a soft edge on a transparent background (alpha from 0 to 255).
    static func badge(size: Int) -> PixelBuffer {
        PixelBuffer(width: size, height: size) { p in
            let c = Double(size) / 2
            for y in 0..<size {
                for x in 0..<size {
                    let d = ((Double(x) + 0.5 - c) * (Double(x) + 0.5 - c) + (Double(y) + 0.5 - c) * (Double(y) + 0.5 - c)).squareRoot()
                    let edge = max(0, min(1, (c - d) / (0.15 * c)))
                    let ring = d > 0.55 * c && d < 0.7 * c
                    let i = (y * size + x) * 4
                    p[i] = ring ? 250 : 230
                    p[i + 1] = ring ? 250 : UInt8(clamping: Int(80 + 120 * Double(y) / Double(size)))
                    p[i + 2] = ring ? 250 : 60
                    p[i + 3] = UInt8(clamping: Int(255 * edge))
                }
            }
        }
    }

    /// `count` frames of a ball circling on a light background, 80 ms each, looping forever.
    static func spinner(size: Int, count: Int, format: ImageFormat) -> DecodedImage? {
        let frames = (0..<count).map { n in
            let angle = 2 * Double.pi * Double(n) / Double(count)
            let (bx, by) = (Double(size) * (0.5 + 0.3 * cos(angle)), Double(size) * (0.5 + 0.3 * sin(angle)))
            let pixels = PixelBuffer(width: size, height: size) { p in
                for y in 0..<size {
                    for x in 0..<size {
                        let inBall = (Double(x) - bx) * (Double(x) - bx) + (Double(y) - by) * (Double(y) - by)
                            < Double(size * size) * 0.012
                        let i = (y * size + x) * 4
                        p[i] = inBall ? 220 : 240
                        p[i + 1] = inBall ? UInt8(n * 200 / count) : 240
                        p[i + 2] = inBall ? 40 : 235
                        p[i + 3] = 255
                    }
                }
            }
            return ImageFrame(pixels: pixels, duration: 0.08)
        }
        return DecodedImage(frames: frames, format: format, loopCount: 0)
    }
}
