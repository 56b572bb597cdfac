import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("WebPCoder: decoding the corpus, alpha, animation, limits", .timeLimit(.minutes(2)))
struct WebPCoderTests {
    let coder = WebPCoder()

    /// Files over this many pixels decode as thumbnails to keep the suite fast.
    static let largePixelCount = 4_000_000

    @Test("the corpus has the WebP rows")
    func corpusPresent() {
        #expect(Corpus.entries(format: "webp", expect: ["ok"]).count >= 160)
    }

    @Test("every ok row decodes with the manifest's display size, frames and loop",
          arguments: Corpus.entries(format: "webp", expect: ["ok"]))
    func decodesOK(_ entry: Corpus.Entry) throws {
        let data = try entry.data()
        let display = try #require(entry.display)
        var options = ImageDecodeOptions()
        if display.width * display.height > Self.largePixelCount {
            options.thumbnailPixelSize = PixelSize(width: 512, height: 512)
        }
        #expect(coder.canDecode(data))
        let image = try coder.decode(data, options: options)
        let expected = options.targetSize(for: PixelSize(width: display.width, height: display.height))
        #expect(image.width == expected.width)
        #expect(image.height == expected.height)
        #expect(image.frames.count == (entry.frames ?? 1))
        if let loop = entry.loop { #expect(image.loopCount == loop) }
        #expect(image.format == .webp)
        #expect(!image.isIncremental)
        for frame in image.frames { #expect(frame.pixels.bytes.count == image.width * image.height * 4) }
    }

    @Test("rows expected to fail throw WebImageError; lenient and nocrash rows never crash",
          arguments: Corpus.entries(format: "webp", expect: ["fail", "bomb", "lenient", "nocrash"]))
    func decodesOthers(_ entry: Corpus.Entry) throws {
        let data = try entry.data()
        do {
            _ = try coder.decode(data, options: ImageDecodeOptions())
            #expect(entry.expect == "lenient" || entry.expect == "nocrash", "\(entry.path) decoded")
        } catch {
            if entry.expect == "bomb" { #expect(error.code == .imageTooLarge) }
        }
    }

    @Test("alpha survives: transparent and opaque pixels in a lossy+ALPH file")
    func alpha() throws {
        for path in ["webp/pillow/transparent.webp", "webp/image-rs/lossy_alpha.webp", "webp/libwebp-test-data/lossy_alpha1.webp"] {
            let image = try coder.decode(Corpus.data(path), options: ImageDecodeOptions())
            let alphas = Set(stride(from: 3, to: image.pixels.bytes.count, by: 4).map { image.pixels.bytes[$0] })
            #expect(alphas.contains(0), "\(path) has no transparent pixel")
            #expect(alphas.contains(255), "\(path) has no opaque pixel")
        }
        let opaque = try coder.decode(Corpus.data("webp/libwebp-test-data/test.webp"), options: ImageDecodeOptions())
        #expect(!opaque.hasAlpha)
    }

    @Test("animated frames carry their durations in seconds and the ANIM loop count")
    func animationTiming() throws {
        let loop3 = try coder.decode(Corpus.data("webp/sharp/animated-loop-3.webp"), options: ImageDecodeOptions())
        #expect(loop3.frames.count == 10)
        #expect(loop3.loopCount == 3)
        #expect(loop3.frames.map(\.duration) == Array(repeating: 3.0, count: 9) + [15.0])

        let squares = try coder.decode(Corpus.data("webp/sharp/rotating-squares.webp"), options: ImageDecodeOptions())
        #expect(squares.frames.map(\.duration) == [0.12, 0.12, 0.09, 0.12, 0.12, 0.09, 0.12, 0.09, 0.03])
        #expect(squares.loopCount == 0)
        // Frames are composed onto the canvas, so consecutive frames differ but share the size.
        #expect(squares.frames[0].pixels != squares.frames[1].pixels)

        // A 0 ms frame plays at 100 ms, as in browsers.
        let zero = try coder.decode(Corpus.data("webp/pillow/iss634.webp"), options: ImageDecodeOptions())
        #expect(zero.frames[0].duration == 0.1)
        #expect(zero.frames[1].duration == 0.07)
    }

    @Test("firstFrameOnly decodes the composed first frame alone")
    func firstFrameOnly() throws {
        let data = try Corpus.data("webp/sharp/rotating-squares.webp")
        let all = try coder.decode(data, options: ImageDecodeOptions())
        let first = try coder.decode(data, options: ImageDecodeOptions(firstFrameOnly: true))
        #expect(first.frames.count == 1)
        #expect(first.pixels == all.pixels)
    }

    @Test("EXIF orientation 2–8 is read from the EXIF chunk and turns the pixels upright")
    func orientation() throws {
        var upright: [PixelBuffer] = []
        var raw: [PixelBuffer] = []
        for value in 2...8 {
            let data = try Corpus.data("webp/pillow/hopper_orientation_\(value).webp")
            let image = try coder.decode(data, options: ImageDecodeOptions())
            #expect(image.orientation.rawValue == value)
            upright.append(image.pixels)
            let stored = try coder.decode(data, options: ImageDecodeOptions(applyOrientation: false))
            #expect(stored.orientation.rawValue == value)
            raw.append(stored.pixels)
        }
        // Upright, all seven are the same photo (up to lossy noise); stored, they are not.
        for i in 1..<7 {
            let uprightDiff = try #require(WebPSamples.meanDifference(upright[0], upright[i]))
            let storedDiff = try #require(WebPSamples.meanDifference(raw[0], raw[i]))
            #expect(uprightDiff < 6, "orientation \(i + 2) upright differs by \(uprightDiff)")
            #expect(storedDiff > uprightDiff * 3, "orientation \(i + 2) stored differs by only \(storedDiff)")
        }
    }

    @Test("a thumbnail decodes at the target size and looks like the downscaled full image")
    func thumbnail() throws {
        let data = try Corpus.data("webp/wuffs/harvesters.lossy.webp")
        let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 400, height: 300))
        let thumb = try coder.decode(data, options: options)
        #expect(thumb.width == 400 && thumb.height == 295)

        // Against area averaging, on a smaller photo to keep debug builds fast.
        let flower = try Corpus.data("webp/pillow/flower.webp")  // 480×360
        let small = try coder.decode(flower, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 160, height: 160)))
        #expect(small.width == 160 && small.height == 120)
        let full = try coder.decode(flower, options: ImageDecodeOptions())
        let reference = full.pixels.resampled(width: 160, height: 120)
        let diff = try #require(WebPSamples.meanDifference(small.pixels, reference))
        #expect(diff < 3, "libwebp's scaler differs from area averaging by \(diff)")

        // With alpha, libwebp's scaler must weigh colour by alpha as the resampler does.
        let transparent = try Corpus.data("webp/pillow/transparent.webp")  // 200×150, lossy + ALPH
        let alphaThumb = try coder.decode(transparent, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 60, height: 60)))
        let alphaReference = try coder.decode(transparent, options: ImageDecodeOptions()).pixels.resampled(width: 60, height: 45)
        let alphaDiff = try #require(WebPSamples.meanDifference(alphaThumb.pixels, alphaReference))
        #expect(alphaDiff < 3, "scaled alpha image differs by \(alphaDiff)")

        let stretched = try coder.decode(data, options: ImageDecodeOptions(
            thumbnailPixelSize: PixelSize(width: 100, height: 100), preserveAspectRatio: false))
        #expect(stretched.width == 100 && stretched.height == 100)

        let animated = try coder.decode(Corpus.data("webp/sharp/rotating-squares.webp"),
                                        options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 40, height: 60)))
        #expect(animated.width == 40 && animated.height == 40 && animated.frames.count == 9)

        let limited = try coder.decode(data, options: ImageDecodeOptions(scaleDownLimitBytes: 100_000))
        #expect(limited.width * limited.height * 4 <= 100_000)
    }

    @Test("a VP8X header declaring 100000×100000 is imageTooLarge before any pixel exists")
    func bomb() {
        let data = WebPSamples.vp8xHeader(width: 100_000, height: 100_000)
        #expect(coder.canDecode(data))
        #expect(WebPSamples.errorCode { try coder.decode(data, options: ImageDecodeOptions()) } == .imageTooLarge)
        // A simple lossless header at WebP's largest size: 16384×16384 is over 100 million.
        let lossless = WebPSamples.vp8lHeader(width: 16_384, height: 16_384)
        #expect(WebPSamples.errorCode { try coder.decode(lossless, options: ImageDecodeOptions()) } == .imageTooLarge)
        // Also for the largest animated canvas, and through the shared manager.
        let animated = WebPSamples.vp8xHeader(width: 1 << 24, height: 1 << 24, flags: 0x02)
        #expect(WebPSamples.errorCode { try ImageCodersManager.shared.decode(animated, options: ImageDecodeOptions()) } == .imageTooLarge)
    }

    @Test("the pixel limit counts every frame of an animation, and simple headers too")
    func pixelLimit() throws {
        let data = try Corpus.data("webp/sharp/rotating-squares.webp")  // 80×80, 9 frames
        let tight = ImageDecodeOptions(maxPixelCount: 80 * 80 * 5)
        #expect(WebPSamples.errorCode { try coder.decode(data, options: tight) } == .imageTooLarge)
        var first = tight
        first.firstFrameOnly = true
        #expect(try coder.decode(data, options: first).frames.count == 1)

        let lossless = try Corpus.data("webp/libwebp-test-data/lossless1.webp")  // VP8L 1000×307
        #expect(WebPSamples.errorCode { try coder.decode(lossless, options: ImageDecodeOptions(maxPixelCount: 300_000)) } == .imageTooLarge)
    }

    @Test("empty, foreign and corrupt data throw badImageData")
    func badData() throws {
        for data in [Data(), Data("RIFF".utf8), Data("RIFF\0\0\0\0WEBPVP8 ".utf8), Data(repeating: 0xAB, count: 64)] {
            #expect(WebPSamples.errorCode { try coder.decode(data, options: ImageDecodeOptions()) } == .badImageData)
        }
        // A valid header followed by garbage pixels.
        var corrupt = try Corpus.data("webp/libwebp-test-data/lossless1.webp")
        for i in 40..<corrupt.count { corrupt[i] = UInt8(truncatingIfNeeded: i &* 131) }
        #expect(WebPSamples.errorCode { try coder.decode(corrupt, options: ImageDecodeOptions()) } == .badImageData)
    }

    @Test("truncation and byte flips anywhere never crash: decode or throw WebImageError")
    func truncationNeverCrashes() throws {
        let paths = [
            "webp/libwebp-test-data/test.webp", "webp/libwebp-test-data/lossless_vec_2_3.webp",
            "webp/libwebp-test-data/lossy_alpha4.webp", "webp/sharp/rotating-squares.webp",
            "webp/pillow/hopper_orientation_6.webp",
        ]
        var generator = SystemRandomNumberGenerator()
        for path in paths {
            let data = try Corpus.data(path)
            let cuts = Set(stride(from: 0, to: data.count, by: max(1, data.count / 60)) + [1, 11, 12, 13, 29, 30, 31])
            for cut in cuts where cut < data.count {
                // Typed throws: any failure is a WebImageError.
                _ = try? coder.decode(data.prefix(cut), options: ImageDecodeOptions())
            }
            for _ in 0..<40 {
                var damaged = data
                let at = Int.random(in: 12..<data.count, using: &generator)
                damaged[at] ^= UInt8.random(in: 1...255, using: &generator)
                // Typed throws: any failure is a WebImageError; the point is no crash.
                _ = try? coder.decode(damaged, options: ImageDecodeOptions())
            }
        }
    }

    @Test("the shared manager decodes WebP through the built-in coder")
    func manager() throws {
        let image = try ImageCodersManager.shared.decode(Corpus.data("webp/wuffs/pjw-thumbnail.lossless.webp"),
                                                         options: ImageDecodeOptions())
        #expect(image.format == .webp && image.width == 32)
        #expect(ImageCodersManager.shared.canEncode(to: .webp))
    }
}
