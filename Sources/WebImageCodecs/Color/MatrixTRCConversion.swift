import CLCMS2
import Foundation

/// A matrix/TRC profile's conversion to sRGB, evaluated with tables instead of lcms2.
///
/// Display P3 (every iPhone photo), Adobe RGB, PNG gAMA/cHRM and CICP sources are all
/// three tone curves and a 3×3 matrix. lcms2's 8-bit path converts them at about
/// 40 Mpixel/s; integer tables and a fixed-point matrix, in place, are several times
/// faster. Linear light has 14 bits (1/16383) and the matrix 12 fractional bits: both
/// errors stay under 0.15 of an 8-bit level, at the steepest part of the sRGB curve.
struct MatrixTRCConversion: Sendable {
    /// Linear light (0…16383) of each 8-bit sample, per channel: `[r0…r255, g0…g255, b0…b255]`.
    private let linear: [Int]
    /// Row-major source-linear → sRGB-linear matrix, times 4096.
    private let matrix: [Int]
    /// sRGB-encoded 8-bit value of linear light `i / 16383`.
    private let encode: [UInt8]

    private static let steps = 16_384
    private static let matrixShift = 12

    /// `nil` unless `profile` is an RGB matrix/TRC profile without lookup tables (which
    /// lcms2 would prefer for it).
    init?(profile: cmsHPROFILE) {
        let tables: [cmsTagSignature] = [cmsSigAToB0Tag, cmsSigAToB1Tag, cmsSigAToB2Tag]
        guard cmsGetColorSpace(profile) == cmsSigRgbData, cmsIsMatrixShaper(profile) != 0,
              !tables.contains(where: { cmsIsTag(profile, $0) != 0 }),
              let source = Self.colorants(of: profile), let srgbProfile = cmsCreate_sRGBProfile() else { return nil }
        defer { cmsCloseProfile(srgbProfile) }
        guard let srgb = Self.colorants(of: srgbProfile), let inverse = Self.inverse(srgb) else { return nil }
        let top = Float(Self.steps - 1)
        var curves: [Int] = []
        for tag in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag] {
            guard let curve = cmsReadTag(profile, tag) else { return nil }
            let tone = OpaquePointer(curve)
            curves += (0..<256).map { i in
                let v = cmsEvalToneCurveFloat(tone, Float(i) / 255)
                return v.isFinite ? Int((min(max(v, 0), 1) * top).rounded()) : 0
            }
        }
        let product = Self.multiply(inverse, source)
        guard product.allSatisfy({ $0.isFinite && abs($0) < 64 }) else { return nil }
        linear = curves
        matrix = product.map { Int(($0 * Double(1 << Self.matrixShift)).rounded()) }
        encode = (0..<Self.steps).map { i in
            let v = Double(i) / Double(Self.steps - 1)
            let e = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
            return UInt8(max(0, min(255, (e * 255).rounded())))
        }
    }

    /// Converts RGBA `pixels` in place; alpha stays. Runs on the caller's thread.
    func apply(_ pixels: UnsafeMutableBufferPointer<UInt8>) {
        guard let p = pixels.baseAddress else { return }
        linear.withUnsafeBufferPointer { lin in
            encode.withUnsafeBufferPointer { enc in
                guard let l = lin.baseAddress, let e = enc.baseAddress else { return }
                let m = matrix, top = Self.steps - 1, half = 1 << (Self.matrixShift - 1), shift = Self.matrixShift
                let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
                @inline(__always) func index(_ v: Int) -> Int { min(max((v &+ half) &>> shift, 0), top) }
                var i = 0
                let end = pixels.count - 3
                while i < end {
                    let r = l[Int(p[i])], g = l[256 &+ Int(p[i + 1])], b = l[512 &+ Int(p[i + 2])]
                    p[i] = e[index(m0 &* r &+ m1 &* g &+ m2 &* b)]
                    p[i + 1] = e[index(m3 &* r &+ m4 &* g &+ m5 &* b)]
                    p[i + 2] = e[index(m6 &* r &+ m7 &* g &+ m8 &* b)]
                    i &+= 4
                }
            }
        }
    }

    /// The colorant matrix (columns rXYZ, gXYZ, bXYZ, PCS D50), row-major.
    private static func colorants(of profile: cmsHPROFILE) -> [Double]? {
        var columns: [cmsCIEXYZ] = []
        for tag in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag] {
            guard let value = cmsReadTag(profile, tag) else { return nil }
            columns.append(value.assumingMemoryBound(to: cmsCIEXYZ.self).pointee)
        }
        return [columns[0].X, columns[1].X, columns[2].X,
                columns[0].Y, columns[1].Y, columns[2].Y,
                columns[0].Z, columns[1].Z, columns[2].Z]
    }

    private static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        (0..<9).map { k in
            let row = k / 3, col = k % 3
            return (0..<3).reduce(0) { $0 + a[row * 3 + $1] * b[$1 * 3 + col] }
        }
    }

    private static func inverse(_ m: [Double]) -> [Double]? {
        let det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
            + m[2] * (m[3] * m[7] - m[4] * m[6])
        guard det.isFinite, abs(det) > 1e-12 else { return nil }
        let cofactors = [
            m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ]
        return cofactors.map { $0 / det }
    }
}
