import Foundation

/// BlurHash: a short base-83 string that a client draws as a blurred placeholder
/// (Wolt's format, `Algorithm.md` of woltapp/blurhash).
///
/// The image is projected onto `x × y` cosine components in linear RGB; the first (DC)
/// component is the average colour in sRGB, the others are quantised against the largest
/// of them. Alpha is ignored, as in every reference encoder. Arithmetic is in `Double`
/// (the Python reference's precision; the C encoder's `Float` can differ on a rounding
/// boundary).
///
/// The cost is `width × height × x × y`: hash a thumbnail (``ImageInfo`` uses one of at
/// most 100 pixels a side), not a photo. Runs on the caller's thread.
///
/// ```swift
/// let hash = try BlurHash.encode(thumbnail, xComponents: 4, yComponents: 3)   // 28 characters
/// ```
public enum BlurHash {
    /// The component counts allowed on each axis.
    public static let componentRange = 1...9

    /// The hash of `pixels` with `xComponents × yComponents` components.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for an empty buffer or a component
    ///   count outside ``componentRange``.
    public static func encode(_ pixels: PixelBuffer, xComponents: Int, yComponents: Int) throws(WebImageError) -> String {
        guard componentRange.contains(xComponents), componentRange.contains(yComponents) else {
            throw .badImageData("BlurHash components must be from 1 to 9 on each axis, got \(xComponents)×\(yComponents)")
        }
        guard pixels.width > 0, pixels.height > 0 else { throw .badImageData("BlurHash of an empty image") }
        let factors = Self.factors(pixels, xComponents: xComponents, yComponents: yComponents)

        var hash = base83(xComponents - 1 + (yComponents - 1) * 9, length: 1)
        let ac = factors.dropFirst()
        let maxValue: Double
        if ac.isEmpty {
            maxValue = 1
            hash += base83(0, length: 1)
        } else {
            let largest = ac.reduce(0) { max($0, abs($1.r), abs($1.g), abs($1.b)) }
            let quantised = Int(max(0, min(82, (largest * 166 - 0.5).rounded(.down))))
            maxValue = Double(quantised + 1) / 166
            hash += base83(quantised, length: 1)
        }
        let dc = factors[0]
        hash += base83((linearToSRGB(dc.r) << 16) + (linearToSRGB(dc.g) << 8) + linearToSRGB(dc.b), length: 4)
        for factor in ac {
            func q(_ value: Double) -> Int {
                Int(max(0, min(18, (signedPow(value / maxValue, 0.5) * 9 + 9.5).rounded(.down))))
            }
            hash += base83(q(factor.r) * 19 * 19 + q(factor.g) * 19 + q(factor.b), length: 2)
        }
        return hash
    }

    /// The projections of the linear-RGB image on each cosine pair, `j` outer, `i` inner.
    private static func factors(_ pixels: PixelBuffer, xComponents: Int, yComponents: Int) -> [(r: Double, g: Double, b: Double)] {
        let width = pixels.width, height = pixels.height
        // cos(π·i·x/W) for every i and x, likewise for y: the inner loop only multiplies.
        let cosX = (0..<xComponents).map { i in (0..<width).map { x in cos(Double.pi * Double(i) * Double(x) / Double(width)) } }
        let cosY = (0..<yComponents).map { j in (0..<height).map { y in cos(Double.pi * Double(j) * Double(y) / Double(height)) } }
        var result: [(r: Double, g: Double, b: Double)] = []
        result.reserveCapacity(xComponents * yComponents)
        pixels.bytes.withUnsafeBufferPointer { p in
            for j in 0..<yComponents {
                for i in 0..<xComponents {
                    var r = 0.0, g = 0.0, b = 0.0
                    for y in 0..<height {
                        let row = y * width * 4
                        let cy = cosY[j][y]
                        for x in 0..<width {
                            let basis = cosX[i][x] * cy
                            let o = row + x * 4
                            r += basis * sRGBToLinear[Int(p[o])]
                            g += basis * sRGBToLinear[Int(p[o + 1])]
                            b += basis * sRGBToLinear[Int(p[o + 2])]
                        }
                    }
                    let scale = (i == 0 && j == 0 ? 1.0 : 2.0) / Double(width * height)
                    result.append((r * scale, g * scale, b * scale))
                }
            }
        }
        return result
    }

    /// sRGB byte → linear light, for each of the 256 values.
    static let sRGBToLinear: [Double] = (0..<256).map { value in
        let c = Double(value) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    /// Linear light → sRGB byte, rounded half up.
    static func linearToSRGB(_ value: Double) -> Int {
        let c = max(0, min(1, value))
        let s = c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055
        return Int((s * 255 + 0.5).rounded(.down))
    }

    private static func signedPow(_ value: Double, _ exponent: Double) -> Double {
        value < 0 ? -pow(-value, exponent) : pow(value, exponent)
    }

    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    /// `value` as `length` base-83 digits, most significant first.
    static func base83(_ value: Int, length: Int) -> String {
        var digits = [Character]()
        var divisor = 1
        for _ in 1..<max(1, length) { divisor *= 83 }
        for _ in 0..<length {
            digits.append(alphabet[(value / divisor) % 83])
            divisor /= 83
        }
        return String(digits)
    }
}
