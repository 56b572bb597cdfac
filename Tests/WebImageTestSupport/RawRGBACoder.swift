import Foundation
import WebImage
import WebImageCodecs

/// A test double for the coder seam: raw RGBA frames behind a magic header.
///
/// The real JPEG/PNG/GIF/WebP coders live elsewhere; this one lets cache tests store,
/// encode and decode without them. Layout: `RGBA-TEST`, one byte of format name length,
/// the format name (what the image was "encoded as"), UInt32 width, height and frame
/// count (big-endian), then each frame's pixels. Shared by WebImageTests and WebImageCompatTests.
public struct RawRGBACoder: ImageCoder {
    public static let magic = Data("RGBA-TEST".utf8)
    public static let formats: [ImageFormat] = [.png, .jpeg, .gif, .webp, .apng]

    /// A manager holding only this coder.
    public static func manager() -> ImageCodersManager { ImageCodersManager(coders: [RawRGBACoder()]) }

    public init() {}

    public func canDecode(_ data: Data) -> Bool { data.starts(with: Self.magic) }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
        let bytes = [UInt8](data)
        var offset = Self.magic.count
        func take(_ n: Int) throws(WebImageError) -> ArraySlice<UInt8> {
            guard n >= 0, offset + n <= bytes.count else { throw WebImageError.badImageData("truncated") }
            defer { offset += n }
            return bytes[offset..<offset + n]
        }
        func uint32() throws(WebImageError) -> Int { try take(4).reduce(0) { $0 << 8 | Int($1) } }
        let nameLength = Int(try take(1).first ?? 0)
        guard let format = ImageFormat(rawValue: String(decoding: try take(nameLength), as: UTF8.self)) else {
            throw WebImageError.badImageData("bad format name")
        }
        let width = try uint32(), height = try uint32(), count = try uint32()
        guard width > 0, height > 0, count > 0 else { throw WebImageError.badImageData("empty image") }
        try options.checkPixelLimit(width: width, height: height, frames: count)
        let target = options.targetSize(for: PixelSize(width: width, height: height))
        var frames: [ImageFrame] = []
        for _ in 0..<(options.firstFrameOnly ? 1 : count) {
            guard let pixels = PixelBuffer(width: width, height: height, bytes: Array(try take(width * height * 4))) else {
                throw WebImageError.badImageData("bad frame")
            }
            let sized = target.width == width && target.height == height
                ? pixels : pixels.resampled(width: target.width, height: target.height)
            frames.append(ImageFrame(pixels: sized, duration: count > 1 ? 0.1 : 0))
        }
        guard let image = DecodedImage(frames: frames, format: format, scale: options.scale) else {
            throw WebImageError.badImageData("no frames")
        }
        return image
    }

    public func canEncode(to format: ImageFormat) -> Bool { Self.formats.contains(format) }

    public func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
        var out = Self.magic
        out.append(UInt8(format.rawValue.utf8.count))
        out.append(contentsOf: Array(format.rawValue.utf8))
        let frames = options.firstFrameOnly ? Array(image.frames.prefix(1)) : image.frames
        for value in [image.width, image.height, frames.count] {
            out.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) })
        }
        for frame in frames { out.append(contentsOf: frame.pixels.bytes) }
        return out
    }

    /// A `width`×`height` image of one colour, `frames` frames.
    public static func image(width: Int = 4, height: Int = 3, alpha: UInt8 = 255, frames: Int = 1,
                      format: ImageFormat = .png, seed: UInt8 = 0) -> DecodedImage {
        let frameList = (0..<frames).map { i -> ImageFrame in
            let pixels = PixelBuffer(width: width, height: height) { p in
                for j in stride(from: 0, to: p.count, by: 4) {
                    p[j] = seed; p[j + 1] = UInt8(truncatingIfNeeded: i); p[j + 2] = UInt8(truncatingIfNeeded: j); p[j + 3] = alpha
                }
            }
            return ImageFrame(pixels: pixels, duration: frames > 1 ? 0.1 : 0)
        }
        return DecodedImage(frames: frameList, format: format) ?? DecodedImage(pixels: PixelBuffer(width: 1, height: 1), format: format)
    }
}
