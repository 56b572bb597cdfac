import Foundation
import WebImageCodecs

/// The gallery's sources: a few pictures drawn and encoded when the server starts, so
/// `/gallery` works with no network and no files, and served at `/examples/NAME`.
///
/// The proxy loads them as `example://NAME` through `ExampleImageLoader`, never over
/// HTTP, so the SSRF guard needs no hole for the server's own address.
public struct ExampleImages: Sendable {
    /// The source scheme of the examples.
    public static let scheme = "example"

    /// Name → encoded bytes and format.
    public let images: [String: (data: Data, format: ImageFormat)]

    /// The examples, drawn once per process.
    public static let shared = ExampleImages()

    /// The names in gallery order.
    public static let names = ["sunset.jpg", "tiles.png", "waves.webp", "spinner.gif"]

    /// Draws and encodes the examples (a few milliseconds of CPU; run once at start).
    public init(coder: any ImageCoder = ImageCodersManager.shared) {
        var images: [String: (Data, ImageFormat)] = [:]
        let plans: [(String, ImageFormat, [PixelBuffer])] = [
            ("sunset.jpg", .jpeg, [Self.draw(width: 1200, height: 800) { x, y in
                let sun = hypot(x - 0.7, y - 0.35) < 0.12
                return sun ? (255, 236, 140, 255) : (UInt8(255 * (1 - y * 0.4)), UInt8(90 + 120 * y), UInt8(60 + 150 * x * y), 255)
            }]),
            ("tiles.png", .png, [Self.draw(width: 640, height: 640) { x, y in
                let odd = (Int(x * 8) + Int(y * 8)) % 2 == 1
                return odd ? (30, 120, 200, 255) : (240, 200, 40, 160)
            }]),
            ("waves.webp", .webp, [Self.draw(width: 900, height: 600) { x, y in
                let wave = 0.5 + 0.5 * sin(x * 24 + sin(y * 9) * 3)
                return (UInt8(20 + 60 * wave), UInt8(90 + 120 * wave), UInt8(160 + 90 * y), 255)
            }]),
            ("spinner.gif", .gif, (0..<8).map { frame in
                Self.draw(width: 240, height: 240) { x, y in
                    let angle = atan2(y - 0.5, x - 0.5) + Double.pi
                    let lit = Int(angle / (2 * Double.pi) * 8) == frame
                    let ring = (0.25...0.45).contains(hypot(x - 0.5, y - 0.5))
                    return ring ? (lit ? (230, 60, 60, 255) : (200, 200, 210, 255)) : (250, 250, 250, 255)
                }
            }),
        ]
        for (name, format, buffers) in plans {
            let frames = buffers.map { ImageFrame(pixels: $0, duration: 0.1) }
            guard let image = DecodedImage(frames: frames, format: format),
                  let data = try? coder.encode(image, as: format, options: ImageEncodeOptions(quality: 0.85))
            else { continue }
            images[name] = (data, format)
        }
        self.images = images
    }

    /// The example `url` names (`example://NAME`), if any.
    public func image(for url: URL) -> (data: Data, format: ImageFormat)? {
        guard url.scheme?.lowercased() == Self.scheme, let name = url.host else { return nil }
        return images[name]
    }

    /// A picture whose pixel at (x, y), in 0…1 coordinates, is `color(x, y)`.
    private static func draw(
        width: Int, height: Int, _ color: (Double, Double) -> (UInt8, UInt8, UInt8, UInt8)
    ) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for row in 0..<height {
            for column in 0..<width {
                let (r, g, b, a) = color(Double(column) / Double(width), Double(row) / Double(height))
                let i = (row * width + column) * 4
                bytes[i] = r
                bytes[i + 1] = g
                bytes[i + 2] = b
                bytes[i + 3] = a
            }
        }
        return PixelBuffer(width: width, height: height, bytes: bytes) ?? PixelBuffer(width: width, height: height)
    }
}
