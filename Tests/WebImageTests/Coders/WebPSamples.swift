import Foundation
@testable import WebImage
@testable import WebImageCodecs

/// Synthetic images and pixel comparisons for the WebP tests.
enum WebPSamples {
    /// A `width`×`height` gradient whose alpha varies, including fully transparent pixels
    /// that still carry colour (lossless must keep it). `seed` shifts the pattern.
    static func gradient(width: Int, height: Int, seed: Int = 0) -> PixelBuffer {
        PixelBuffer(width: width, height: height) { p in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    p[i] = UInt8(truncatingIfNeeded: x * 7 + seed * 31)
                    p[i + 1] = UInt8(truncatingIfNeeded: y * 5 + seed * 17)
                    p[i + 2] = UInt8(truncatingIfNeeded: (x ^ y) + seed)
                    p[i + 3] = x % 9 == 0 ? 0 : UInt8(truncatingIfNeeded: 128 + x + y)
                }
            }
        }
    }

    /// The mean absolute difference per channel byte, or `nil` when the sizes differ.
    static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double? {
        guard a.width == b.width, a.height == b.height else { return nil }
        guard !a.bytes.isEmpty else { return 0 }
        return a.bytes.withUnsafeBufferPointer { pa in
            b.bytes.withUnsafeBufferPointer { pb in
                var sum = 0
                for i in 0..<pa.count { sum += abs(Int(pa[i]) - Int(pb[i])) }
                return Double(sum) / Double(pa.count)
            }
        }
    }

    /// The code of the ``WebImageError`` `body` throws; `nil` when it returns or throws another error.
    static func errorCode<T>(_ body: () throws -> T) -> WebImageError.Code? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as? WebImageError)?.code
        }
    }

    /// A minimal extended-format (VP8X) WebP header declaring `width`×`height`.
    static func vp8xHeader(width: Int, height: Int, flags: UInt8 = 0) -> Data {
        func le24(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }
        var bytes = Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBP".utf8)
        bytes += Array("VP8X".utf8) + [10, 0, 0, 0, flags, 0, 0, 0]
        bytes += le24(width - 1) + le24(height - 1)
        return Data(bytes)
    }

    /// A simple-format lossless (VP8L) WebP header declaring `width`×`height` (each at most 16384).
    static func vp8lHeader(width: Int, height: Int) -> Data {
        let bits = (width - 1) | (height - 1) << 14
        var bytes = Array("RIFF".utf8) + [18, 0, 0, 0] + Array("WEBP".utf8)
        bytes += Array("VP8L".utf8) + [6, 0, 0, 0, 0x2F]
        bytes += [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24 & 0xFF), 0]
        return Data(bytes)
    }
}
