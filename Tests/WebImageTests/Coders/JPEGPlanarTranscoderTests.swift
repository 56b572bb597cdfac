import Foundation
import Testing
@testable import WebImageCodecs

/// Issue #36 lever 3: a JPEG thumbnail of a JPEG made in YCbCr planes
/// (``JPEGPlanarTranscoder``) has the RGBA path's size and centring, stays within a small
/// PSNR margin of it, and scores as well against a full-decode Lanczos reference; files
/// that need RGB are declined.
@Suite("JPEG planar transcode (YCbCr planes, no RGB)", .timeLimit(.minutes(3)))
struct JPEGPlanarTranscoderTests {
    static let encode = ImageEncodeOptions(quality: 0.95)

    static func options(_ width: Int, _ height: Int, fit: Bool = true, orient: Bool = true) -> ImageDecodeOptions {
        var o = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: width, height: height))
        o.preserveAspectRatio = fit
        o.applyOrientation = orient
        return o
    }

    /// The RGBA path's result for the same request: decode as a thumbnail, encode.
    static func rgbPath(_ data: Data, _ options: ImageDecodeOptions) throws -> Data {
        let image = try JPEGCoder().decode(data, options: options)
        return try JPEGCoder().encode(image, as: .jpeg, options: encode)
    }

    /// PSNR over R, G and B of two images of one size.
    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        var sum = 0.0, n = 0
        for i in Swift.stride(from: 0, to: a.bytes.count, by: 4) {
            for c in 0..<3 {
                let d = Double(a.bytes[i + c]) - Double(b.bytes[i + c])
                sum += d * d
            }
            n += 3
        }
        return sum == 0 ? 99 : 10 * log10(255 * 255 / (sum / Double(n)))
    }

    static func decoded(_ data: Data) throws -> PixelBuffer { try JPEGCoder().decode(data, options: .init()).pixels }

    /// Planar and RGBA results of one request: same size, PSNR between them.
    static func compare(_ data: Data, _ options: ImageDecodeOptions) throws -> (planar: PixelBuffer, rgb: PixelBuffer, psnr: Double) {
        let planar = try #require(try JPEGPlanarTranscoder.transcode(data, options: options, encode: encode))
        let a = try decoded(planar.data), b = try decoded(try rgbPath(data, options))
        #expect(a.width == b.width && a.height == b.height, "planar \(a.width)×\(a.height), RGB \(b.width)×\(b.height)")
        #expect(planar.size == PixelSize(width: b.width, height: b.height))
        return (a, b, psnr(a, b))
    }

    /// A 12 MP baseline 4:2:0 photo with no profile and no EXIF (the corpus photo's pixels
    /// re-encoded at quality 90, as the quality fixtures are).
    static let photo: Data = {
        guard let data = try? Corpus.data("jpeg/sdwebimage/TestJFIF.jpg"),
              let image = try? JPEGCoder().decode(data, options: .init()),
              let encoded = try? JPEGCoder().encode(image, as: .jpeg, options: ImageEncodeOptions(quality: 0.9)) else {
            return Data()
        }
        return encoded
    }()

    @Test("12 MP 4:2:0 photo to every thumbnail shape: the RGB path's size, ≥ 40 dB from it, as close to the reference",
          arguments: [(673, 500), (500, 500), (300, 300), (1200, 1200)])
    func photo(box: (Int, Int)) throws {
        let options = Self.options(box.0, box.1)
        let (planar, rgb, between) = try Self.compare(Self.photo, options)
        #expect(between >= 40, "planar vs RGB path: \(between) dB")
        // Reference: the whole image decoded, one Lanczos3 resample to the same size.
        let full = try JPEGCoder().decode(Self.photo, options: .init()).pixels
        let reference = full.resampled(width: planar.width, height: planar.height)
        let ours = Self.psnr(planar, reference), theirs = Self.psnr(rgb, reference)
        #expect(ours >= theirs - 0.5, "vs reference: planar \(ours) dB, RGB path \(theirs) dB")
        print("planar \(box): \(planar.width)×\(planar.height), vs RGB path \(between) dB; vs reference planar \(ours), RGB path \(theirs)")
    }

    @Test("4:2:0, 4:2:2, 4:4:4 and progressive inputs at odd sizes match the RGB path's geometry",
          arguments: [("jpeg/wuffs/peacock.s2x2-420.jpeg", [(5, 3), (16, 12), (21, 15), (33, 25), (49, 37)]),
                      ("jpeg/wuffs/peacock.s2x1-422.jpeg", [(3, 3), (5, 3), (9, 17), (21, 15), (49, 37)]),
                      ("jpeg/wuffs/peacock.s1x1-444.jpeg", [(5, 3), (16, 12), (21, 15), (49, 37)]),
                      ("jpeg/wuffs/peacock.progressive.jpeg", [(16, 12), (21, 15), (49, 37)]),
                      ("jpeg/jpeg-decoder/reftest/mozilla_jpg-size-17x17.jpg", [(1, 1), (2, 2), (3, 3), (5, 3), (17, 9)])])
    func oddSizes(path: String, sizes: [(Int, Int)]) throws {
        let data = try Corpus.data(path)
        for (w, h) in sizes {
            let (planar, _, between) = try Self.compare(data, Self.options(w, h, fit: false))
            #expect(planar.width == w && planar.height == h)
            // Tiny outputs of a detailed 100×75 picture are mostly edge, where chroma
            // resampled once differs most from chroma upsampled, resampled and averaged.
            #expect(between >= 30, "\(path) at \(w)×\(h): \(between) dB")
        }
    }

    @Test("reencode: the same planes encoded again at the quality it asks for, byte for byte what a transcode at that quality gives")
    func reencode() throws {
        let data = Self.photo
        let options = Self.options(500, 500)
        let low = ImageEncodeOptions(quality: 0.5)
        var seen: [Int] = []
        let again = try #require(try JPEGPlanarTranscoder.transcode(data, options: options, encode: Self.encode) { output in
            seen.append(output.data.count)
            return seen.count == 1 ? low : nil
        })
        let first = try #require(try JPEGPlanarTranscoder.transcode(data, options: options, encode: Self.encode))
        let direct = try #require(try JPEGPlanarTranscoder.transcode(data, options: options, encode: low))
        #expect(seen == [first.data.count, direct.data.count])
        #expect(again.data == direct.data && again.size == direct.size)
    }

    @Test("an sRGB-tagged 12 MP photo goes planar when its EXIF orientation is not applied")
    func srgbProfile() throws {
        let data = try Corpus.data("jpeg/large/dog_exif_extended_xmp_icc.jpg")
        let (_, _, between) = try Self.compare(data, Self.options(500, 500, orient: false))
        #expect(between >= 40, "\(between) dB")
        #expect(try JPEGPlanarTranscoder.transcode(data, options: Self.options(500, 500), encode: Self.encode) == nil)
    }

    @Test("a progressive 4:4:4 photo decoded at 1/8 through the scan filter")
    func progressiveLarge() throws {
        let data = try Corpus.data("jpeg/sdwebimage/TestImageLarge.jpg")
        let (_, _, between) = try Self.compare(data, Self.options(300, 300))
        #expect(between >= 40, "\(between) dB")
    }

    @Test("declined: grayscale, CMYK, RGB-coded, odd sampling, an orientation to apply, no shrink, a box pre-shrink, a wide-gamut profile")
    func declined() throws {
        let cases: [(String, ImageDecodeOptions)] = [
            ("jpeg/wuffs/peacock.grayscale.jpeg", Self.options(20, 20)),
            ("jpeg/jpegsuite/baseline/32x32x8_cmyk.jpg", Self.options(8, 8)),
            ("jpeg/jpegsuite/baseline/32x32x8_rgb.jpg", Self.options(8, 8)),
            ("jpeg/wuffs/peacock.s-weird.jpeg", Self.options(20, 20)),
            ("jpeg/pillow/hopper_orientation_6.jpg", Self.options(60, 60)),
            ("jpeg/wuffs/peacock.s2x2-420.jpeg", Self.options(100, 100)),
            ("jpeg/wuffs/peacock.s2x2-420.jpeg", Self.options(1, 1)), // chroma would need a box pre-shrink
            ("jpeg/sdwebimage/TestJFIF.jpg", Self.options(500, 500)), // a Display P3 profile
            ("jpeg/wuffs/peacock.s2x2-420.jpeg", ImageDecodeOptions()),
        ]
        for (path, options) in cases {
            let data = try Corpus.data(path)
            #expect(try JPEGPlanarTranscoder.transcode(data, options: options, encode: Self.encode) == nil, "\(path)")
        }
    }

    @Test("an EXIF-rotated file goes planar when orientation is not applied, with the stored geometry")
    func rotatedNotApplied() throws {
        let data = try Corpus.data("jpeg/pillow/hopper_orientation_6.jpg")
        // Sizes are meant for the upright picture (JPEGDecodePlan), so 60×40 is 40×60 stored.
        let (planar, _, between) = try Self.compare(data, Self.options(60, 40, fit: false, orient: false))
        #expect(planar.width == 40 && planar.height == 60)
        #expect(between >= 35, "\(between) dB")
    }

    @Test("truncated data fails as the RGB path does")
    func truncated() throws {
        let data = try Corpus.data("jpeg/wuffs/peacock.default.truncated.jpeg")
        #expect(throws: WebImageError.self) { try JPEGCoder().decode(data, options: Self.options(20, 20)) }
        #expect(throws: WebImageError.self) {
            try JPEGPlanarTranscoder.transcode(data, options: Self.options(20, 20), encode: Self.encode)
        }
    }
}
