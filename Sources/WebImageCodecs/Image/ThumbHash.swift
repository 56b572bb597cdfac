import Foundation

/// ThumbHash: 19 to 25 bytes from which a client draws a placeholder with the image's
/// aspect ratio, colours and alpha (Evan Wallace's format, evanw/thumbhash).
///
/// The image, composited over its own average colour, is split into a luminance and two
/// colour-difference channels (plus alpha when any pixel is not opaque); each is reduced
/// to a triangle of low-frequency cosine coefficients, quantised to 4 bits. Arithmetic is
/// in `Double`; roundings are half up, as in the JavaScript reference.
///
/// The input must be at most 100×100 pixels (the format's own limit): scale larger
/// images down first, keeping the aspect ratio. Runs on the caller's thread.
///
/// ```swift
/// let bytes = try ThumbHash.encode(thumbnail)        // [UInt8]
/// let text = ThumbHash.hex(bytes)                     // as imgproxy Pro's `/info` writes it
/// ```
public enum ThumbHash {
    /// The largest side the encoder accepts.
    public static let maxSide = 100

    /// The hash of `pixels` (non-premultiplied RGBA, at most 100×100).
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for an empty buffer or a side over
    ///   ``maxSide``.
    public static func encode(_ pixels: PixelBuffer) throws(WebImageError) -> [UInt8] {
        let w = pixels.width, h = pixels.height
        guard w > 0, h > 0 else { throw .badImageData("ThumbHash of an empty image") }
        guard w <= maxSide, h <= maxSide else {
            throw .badImageData("ThumbHash needs an image of at most \(maxSide)×\(maxSide) pixels, got \(w)×\(h)")
        }
        let count = w * h
        let p = pixels.bytes

        // The average colour, weighted by alpha.
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        for i in 0..<count {
            let alpha = Double(p[i * 4 + 3]) / 255
            avgR += alpha / 255 * Double(p[i * 4])
            avgG += alpha / 255 * Double(p[i * 4 + 1])
            avgB += alpha / 255 * Double(p[i * 4 + 2])
            avgA += alpha
        }
        if avgA > 0 {
            avgR /= avgA
            avgG /= avgA
            avgB /= avgA
        }
        let hasAlpha = avgA < Double(count)
        let lLimit = hasAlpha ? 5.0 : 7.0
        let longest = Double(max(w, h))
        let lx = max(1, round(lLimit * Double(w) / longest))
        let ly = max(1, round(lLimit * Double(h) / longest))

        // Composited over the average colour, as L (luminance), P and Q (colour
        // differences) and A.
        var l = [Double](repeating: 0, count: count), pc = l, qc = l, a = l
        for i in 0..<count {
            let alpha = Double(p[i * 4 + 3]) / 255
            let r = avgR * (1 - alpha) + alpha / 255 * Double(p[i * 4])
            let g = avgG * (1 - alpha) + alpha / 255 * Double(p[i * 4 + 1])
            let b = avgB * (1 - alpha) + alpha / 255 * Double(p[i * 4 + 2])
            l[i] = (r + g + b) / 3
            pc[i] = (r + g) / 2 - b
            qc[i] = r - g
            a[i] = alpha
        }

        let lChannel = channel(l, w, h, nx: max(3, lx), ny: max(3, ly))
        let pChannel = channel(pc, w, h, nx: 3, ny: 3)
        let qChannel = channel(qc, w, h, nx: 3, ny: 3)
        let aChannel = hasAlpha ? channel(a, w, h, nx: 5, ny: 5) : nil

        let isLandscape = w > h
        let header24 = UInt32(round(63 * lChannel.dc)) | UInt32(round(31.5 + 31.5 * pChannel.dc)) << 6
            | UInt32(round(31.5 + 31.5 * qChannel.dc)) << 12 | UInt32(round(31 * lChannel.scale)) << 18
            | (hasAlpha ? 1 << 23 : 0)
        let header16 = UInt16(isLandscape ? ly : lx) | UInt16(round(63 * pChannel.scale)) << 3
            | UInt16(round(63 * qChannel.scale)) << 9 | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [
            UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16),
            UInt8(header16 & 255), UInt8(header16 >> 8),
        ]
        if let aChannel {
            hash.append(UInt8(round(15 * aChannel.dc)) | UInt8(round(15 * aChannel.scale)) << 4)
        }
        var isOdd = false
        for channel in [lChannel, pChannel, qChannel] + (aChannel.map { [$0] } ?? []) {
            for value in channel.ac {
                let nibble = UInt8(round(15 * value))
                if isOdd {
                    hash[hash.count - 1] |= nibble << 4
                } else {
                    hash.append(nibble)
                }
                isOdd.toggle()
            }
        }
        return hash
    }

    /// Upper-case hexadecimal, as imgproxy Pro's `/info` writes `thumb_hash`.
    public static func hex(_ hash: [UInt8]) -> String {
        hash.map { String(format: "%02X", $0) }.joined()
    }

    /// One channel's DC, its AC coefficients mapped to 0…1, and their scale.
    private static func channel(_ values: [Double], _ w: Int, _ h: Int, nx: Double, ny: Double)
        -> (dc: Double, ac: [Double], scale: Double)
    {
        let nx = Int(nx), ny = Int(ny)
        var dc = 0.0, ac: [Double] = [], scale = 0.0
        var fx = [Double](repeating: 0, count: w)
        for cy in 0..<ny {
            var cx = 0
            // The triangle: fewer horizontal frequencies as the vertical ones rise.
            while cx * ny < nx * (ny - cy) {
                var f = 0.0
                for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                for y in 0..<h {
                    let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<w { f += values[x + y * w] * fx[x] * fy }
                }
                f /= Double(w * h)
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale > 0 {
            ac = ac.map { 0.5 + 0.5 / scale * $0 }
        }
        return (dc, ac, scale)
    }

    /// Half up, as JavaScript's `Math.round` (every value rounded here is ≥ 0).
    private static func round(_ value: Double) -> Double { (value + 0.5).rounded(.down) }
}
