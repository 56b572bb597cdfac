import Foundation
import Synchronization
@testable import WebImage
@testable import WebImageCodecs

/// A test double for the real coders: a trivial raw RGBA format, `WIRAW` + width and
/// height (UInt32 big-endian) + the pixels, top row first.
///
/// It honours thumbnail sizes and the pixel limit like a real coder, and decodes
/// progressively by rows: a partial image has the rows received so far and the rest
/// transparent. Used while `ImageCodersManager.shared` has no coders on this branch.
struct RawTestCoder: ProgressiveImageCoder {
    static let magic = Array("WIRAW".utf8)
    static let headerSize = magic.count + 8

    /// Encodes `pixels` in the raw format.
    static func encode(_ pixels: PixelBuffer) -> Data {
        var data = Data(magic)
        for value in [UInt32(pixels.width), UInt32(pixels.height)] {
            withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: pixels.bytes)
        return data
    }

    /// A `width`×`height` test image whose pixel (x, y) is (x, y, x ^ y, 255) mod 256.
    static func sample(width: Int, height: Int) -> PixelBuffer {
        PixelBuffer(width: width, height: height) { p in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    p[i] = UInt8(truncatingIfNeeded: x)
                    p[i + 1] = UInt8(truncatingIfNeeded: y)
                    p[i + 2] = UInt8(truncatingIfNeeded: x ^ y)
                    p[i + 3] = 255
                }
            }
        }
    }

    static func header(_ data: Data) -> (width: Int, height: Int)? {
        guard data.count >= headerSize, data.starts(with: magic) else { return nil }
        let b = Array(data.prefix(headerSize))
        func u32(_ at: Int) -> Int { Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3]) }
        return (u32(magic.count), u32(magic.count + 4))
    }

    func canDecode(_ data: Data) -> Bool { data.starts(with: Self.magic) }

    func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
        guard let image = try Self.decode(data, options: options, partial: false) else {
            throw WebImageError.badImageData("truncated raw image")
        }
        return image
    }

    func canEncode(to format: ImageFormat) -> Bool { false }

    func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
        throw WebImageError.unsupportedFormat("the raw test coder does not encode")
    }

    func canDecodeIncrementally(_ data: Data) -> Bool { canDecode(data) }

    func makeIncrementalDecoder(options: ImageDecodeOptions) -> any ProgressiveImageDecoder {
        Incremental(options: options)
    }

    /// Decodes whole rows; with `partial`, missing rows are transparent and `nil` means
    /// not even one row has arrived.
    static func decode(_ data: Data, options: ImageDecodeOptions, partial: Bool) throws(WebImageError) -> DecodedImage? {
        guard let (width, height) = header(data), width > 0, height > 0 else {
            throw WebImageError.badImageData("not a raw test image")
        }
        try options.checkPixelLimit(width: width, height: height)
        let rowBytes = width * 4
        let rows = min(height, (data.count - headerSize) / rowBytes)
        if !partial && rows < height { return nil }
        if rows == 0 { return nil }
        var pixels = PixelBuffer(width: width, height: height)
        pixels.bytes.withUnsafeMutableBufferPointer { dst in
            data.withUnsafeBytes { src in
                let count = rows * rowBytes
                UnsafeMutableRawBufferPointer(dst).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: src[headerSize..<headerSize + count]))
            }
        }
        let target = options.targetSize(for: PixelSize(width: width, height: height))
        if target.width != width || target.height != height {
            pixels = pixels.resampled(width: target.width, height: target.height)
        }
        return DecodedImage(pixels: pixels, format: .undefined, scale: options.scale, isIncremental: partial)
    }

    private final class Incremental: ProgressiveImageDecoder {
        let options: ImageDecodeOptions
        let calls = Mutex(0)

        init(options: ImageDecodeOptions) { self.options = options }

        func decode(_ data: Data, isComplete: Bool) throws -> DecodedImage? {
            calls.withLock { $0 += 1 }
            return try RawTestCoder.decode(data, options: options, partial: !isComplete)
        }
    }
}
