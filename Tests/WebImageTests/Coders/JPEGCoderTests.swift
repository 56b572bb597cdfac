import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("JPEGCoder: the corpus, orientation, thumbnails, CMYK, encoding", .timeLimit(.minutes(3)))
struct JPEGCoderTests {
    let coder = JPEGCoder()

    /// Mean absolute difference of the RGB channels of two same-sized buffers.
    static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        guard a.width == b.width, a.height == b.height, !a.bytes.isEmpty else { return .infinity }
        var total = 0
        a.bytes.withUnsafeBufferPointer { p in
            b.bytes.withUnsafeBufferPointer { q in
                var i = 0
                while i < p.count {
                    total += abs(Int(p[i]) - Int(q[i])) + abs(Int(p[i + 1]) - Int(q[i + 1])) + abs(Int(p[i + 2]) - Int(q[i + 2]))
                    i += 4
                }
            }
        }
        return Double(total) / Double(a.width * a.height * 3)
    }

    /// The code of the ``WebImageError`` `body` throws; `nil` when it returns. Any other
    /// error is recorded as a test failure.
    static func code<T>(of body: () throws -> T) -> WebImageError.Code? {
        do {
            _ = try body()
            return nil
        } catch let error as WebImageError {
            return error.code
        } catch {
            Issue.record("not a WebImageError: \(error)")
            return nil
        }
    }

    // MARK: Corpus

    /// `ok` rows that are lossless JPEG (SOF3), which libjpeg-turbo 2.1 cannot decode.
    static let losslessOK: Set<String> = [
        "jpeg/jpeg-decoder/reftest/lossless_1_jpeg_lossless_sel1-8bit.jpg",
        "jpeg/sharp/testimgl.jpg",
    ]

    @Test("every `ok` JPEG decodes at its display size, one frame (lossless ones are unsupported)")
    func okFiles() throws {
        let entries = Corpus.entries(format: "jpeg", expect: ["ok"])
        #expect(entries.count > 250)
        for entry in entries {
            if Self.losslessOK.contains(entry.path) {
                let data = try entry.data()
                #expect(Self.code { try coder.decode(data, options: .init()) } == .unsupportedFormat, "\(entry)")
                continue
            }
            do {
                let image = try coder.decode(entry.data(), options: .init())
                let display = try #require(entry.display, "\(entry)")
                #expect(image.width == display.width && image.height == display.height, "\(entry)")
                #expect(image.frames.count == 1, "\(entry)")
                #expect(image.format == .jpeg && !image.isIncremental, "\(entry)")
                #expect(!image.hasAlpha, "\(entry)")
            } catch {
                Issue.record("\(entry): \(error)")
            }
        }
    }

    @Test("`fail` JPEGs throw a WebImageError; bombs throw imageTooLarge")
    func failAndBombFiles() throws {
        let failing = Corpus.entries(format: "jpeg", expect: ["fail"])
        #expect(failing.count >= 6)
        for entry in failing {
            let data = try entry.data()
            #expect(Self.code { try coder.decode(data, options: .init()) } != nil, "\(entry)")
        }
        let bombs = Corpus.entries(format: "jpeg", expect: ["bomb"])
        #expect(bombs.count >= 2)
        for entry in bombs {
            let data = try entry.data()
            #expect(Self.code { try coder.decode(data, options: .init()) } == .imageTooLarge, "\(entry)")
        }
    }

    @Test("`optional` JPEGs decode or fail with unsupportedFormat; 12-bit and lossless are unsupported")
    func optionalFiles() throws {
        let entries = Corpus.entries(format: "jpeg", expect: ["optional"])
        #expect(entries.count > 100)
        var unsupported = 0
        for entry in entries {
            let data = try entry.data()
            let code = Self.code { try coder.decode(data, options: .init()) }
            #expect(code == nil || code == .unsupportedFormat, "\(entry): \(String(describing: code))")
            if code == .unsupportedFormat { unsupported += 1 }
        }
        #expect(unsupported > 0)
        // JPEG-LS is a different codec (SOF55); it must never read as corrupt data.
        for entry in entries where entry.path.contains("/ls/") {
            let data = try entry.data()
            #expect(Self.code { try coder.decode(data, options: .init()) } == .unsupportedFormat, "\(entry)")
        }
        let lossless = try Corpus.data("jpeg/jpeg-decoder/reftest/lossless_1_jpeg_lossless_sel1.jpg")
        #expect(Self.code { try coder.decode(lossless, options: .init()) } == .unsupportedFormat)
        let twelveBit = try Corpus.data("jpeg/jpegsuite/extended_arithmetic/32x32x12_grayscale.jpg")
        #expect(Self.code { try coder.decode(twelveBit, options: .init()) } == .unsupportedFormat)
    }

    @Test("`nocrash` and `lenient` JPEGs decode or throw a WebImageError")
    func nocrashFiles() throws {
        let entries = Corpus.entries(format: "jpeg", expect: ["nocrash", "lenient"])
        #expect(entries.count > 100)
        for entry in entries {
            let data = try entry.data()
            _ = Self.code { try coder.decode(data, options: .init()) }
        }
    }

    /// Issue #50 item 1: 27 files of jpeg-decoder's crash suite start `FF D8` with no marker
    /// after it; they were reported as "No decoder for jpeg is available" (1005).
    @Test("a file starting FF D8 with a damaged next marker is bad data or decodes, never 'no decoder'")
    func damagedFirstMarker() throws {
        let damaged = try Corpus.entries(format: "jpeg", expect: ["nocrash"]).compactMap { entry -> (String, Data)? in
            let data = try entry.data()
            return data.count > 2 && data.prefix(2).elementsEqual([0xFF, 0xD8]) && data[data.startIndex + 2] != 0xFF
                ? (entry.path, data) : nil
        }
        #expect(damaged.count >= 20)
        for (path, data) in damaged {
            #expect(ImageFormat.detect(data) == .jpeg, "\(path)")
            #expect(coder.canDecode(data), "\(path)")
            do {
                _ = try ImageCodersManager.shared.decode(data, options: .init())
            } catch {
                // libjpeg-turbo 2.1 refuses some processes (lossless); that message names the feature.
                // A header declaring more pixels than the limit is imageTooLarge, as for any file.
                let featureRefused = error.code == .unsupportedFormat && error.message.hasPrefix("JPEG feature not supported")
                #expect(error.code == .badImageData || error.code == .imageTooLarge || featureRefused, "\(path): \(error)")
            }
        }
    }

    @Test("empty, non-JPEG and cut-off data fail with badImageData")
    func badData() throws {
        #expect(Self.code { try coder.decode(Data(), options: .init()) } == .badImageData)
        #expect(Self.code { try coder.decode(Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]), options: .init()) } == .badImageData)
        let full = try Corpus.data("jpeg/libjpeg-turbo/testorig.jpg")
        #expect(Self.code { try coder.decode(full.prefix(full.count / 2), options: .init()) } == .badImageData)
        #expect(!coder.canDecode(Data("GIF89a".utf8)))
        #expect(coder.canDecode(full))
    }

    @Test("a file missing only its EOI marker still decodes completely")
    func missingEOI() throws {
        let full = try Corpus.data("jpeg/libjpeg-turbo/testorig.jpg")
        #expect(full.suffix(2).elementsEqual([0xFF, 0xD9]))
        let expected = try coder.decode(full, options: .init())
        let image = try coder.decode(full.dropLast(2), options: .init())
        #expect(image.pixels == expected.pixels)
    }

    /// An 8×8 grey progressive JPEG: one DC scan, then `refinements` DC refinement scans.
    static func manyScans(_ refinements: Int) -> Data {
        var d: [UInt8] = [0xFF, 0xD8]
        d += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        d += [0xFF, 0xC2, 0x00, 0x0B, 0x08, 0x00, 0x08, 0x00, 0x08, 0x01, 0x01, 0x11, 0x00]
        // One DC code, length 1, for category 0.
        d += [0xFF, 0xC4, 0x00, 0x14, 0x00, 0x01] + [UInt8](repeating: 0, count: 15) + [0x00]
        d += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x00, 0x01, 0x7F]
        for _ in 0..<refinements {
            d += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x00, 0x10, 0x7F]
        }
        return Data(d + [0xFF, 0xD9])
    }

    @Test("a progressive file with more than 500 scans is refused, one-shot and incremental")
    func scanLimit() throws {
        #expect(Self.code { try coder.decode(Self.manyScans(400), options: .init()) } == nil)
        let hostile = Self.manyScans(600)
        #expect(Self.code { try coder.decode(hostile, options: .init()) } == .badImageData)
        let decoder = coder.makeIncrementalDecoder(options: .init())
        #expect(throws: WebImageError.self) { try decoder.decode(hostile.dropLast(2), isComplete: false) }
    }

    @Test("arithmetic coding and restart markers decode like their plain twins")
    func arithmeticAndRestarts() throws {
        let plain = try coder.decode(Corpus.data("jpeg/libjpeg-turbo/testorig.jpg"), options: .init())
        let arithmetic = try coder.decode(Corpus.data("jpeg/libjpeg-turbo/testimgari.jpg"), options: .init())
        #expect(Self.meanDifference(arithmetic.pixels, plain.pixels) < 1)
        let restarts = try coder.decode(Corpus.data("jpeg/jpeg-decoder/reftest/restarts.jpg"), options: .init())
        #expect(restarts.width == 33 && restarts.height == 33)
    }

    // MARK: Orientation

    @Test("all eight EXIF orientations display the same upright picture", arguments: ["Landscape", "Portrait"])
    func exifOrientation(kind: String) throws {
        let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 240, height: 240))
        let reference = try coder.decode(Corpus.data("jpeg/exif-orientation/\(kind)_1.jpg"), options: options)
        #expect(reference.orientation == .up)
        for n in 2...8 {
            let image = try coder.decode(Corpus.data("jpeg/exif-orientation/\(kind)_\(n).jpg"), options: options)
            #expect(image.orientation.rawValue == n)
            #expect(image.width == reference.width && image.height == reference.height, "\(kind)_\(n)")
            let difference = Self.meanDifference(image.pixels, reference.pixels)
            #expect(difference < 3, "\(kind)_\(n): mean difference \(difference)")
        }
    }

    @Test("applyOrientation = false keeps the stored pixels but records the orientation")
    func orientationNotApplied() throws {
        let data = try Corpus.data("jpeg/libavif/paris_exif_orientation_5.jpg")
        let stored = try coder.decode(data, options: .init(applyOrientation: false))
        #expect(stored.width == 403 && stored.height == 302)
        #expect(stored.orientation == .leftMirrored)
        let upright = try coder.decode(data, options: .init())
        #expect(upright.width == 302 && upright.height == 403)
        #expect(upright.pixels == stored.pixels.oriented(.leftMirrored))
    }

    // MARK: Thumbnails

    @Test("a 5250×3450 JPEG thumbnails to 400×263, close to a full decode area-averaged")
    func thumbnail() throws {
        let data = try Corpus.data("jpeg/sdwebimage/TestImageLarge.jpg")
        let thumb = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 400, height: 300)))
        #expect(thumb.width == 400 && thumb.height == 263)
        let full = try coder.decode(data, options: .init()).pixels
        #expect(full.width == 5250 && full.height == 3450)
        // Average the full image's block under every 7th thumbnail pixel (resampling all
        // 18 million pixels in a debug build would take seconds).
        var total = 0.0, samples = 0
        for ty in stride(from: 0, to: 263, by: 7) {
            for tx in stride(from: 0, to: 400, by: 7) {
                let x0 = tx * 5250 / 400, x1 = (tx + 1) * 5250 / 400
                let y0 = ty * 3450 / 263, y1 = (ty + 1) * 3450 / 263
                var sum = [0, 0, 0]
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        let i = (y * 5250 + x) * 4
                        for c in 0..<3 { sum[c] += Int(full.bytes[i + c]) }
                    }
                }
                let count = (x1 - x0) * (y1 - y0)
                let t = (ty * 400 + tx) * 4
                for c in 0..<3 { total += abs(Double(sum[c]) / Double(count) - Double(thumb.pixels.bytes[t + c])) }
                samples += 3
            }
        }
        let difference = total / Double(samples)
        #expect(difference < 6, "mean difference \(difference)")
    }

    @Test("a cut-off progressive JPEG fails as a 1/4 or 1/8 thumbnail too (scans are filtered there)", arguments: [400, 200])
    func truncatedProgressiveThumbnail(side: Int) throws {
        let data = try Corpus.data("jpeg/sdwebimage/TestImageLarge.jpg")
        let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: side, height: side))
        for cut in [data.count / 2, data.count - 2_000] {
            #expect(throws: WebImageError.self, "cut at \(cut)") { try coder.decode(data.prefix(cut), options: options) }
        }
    }

    @Test("the DCT scale leaves Lanczos at least 2× on both axes, as libvips' shrink-on-load", arguments: [
        (4032, 3024, 500, 375, 4), (4032, 3024, 252, 189, 8), (4032, 3024, 253, 190, 4), (4032, 3024, 1200, 900, 1),
        (4032, 3024, 1008, 756, 2), (5250, 3450, 400, 263, 4), (5250, 3450, 100, 100, 8), (100, 75, 100, 75, 1),
    ])
    func scaleRule(width: Int, height: Int, targetWidth: Int, targetHeight: Int, expected: Int) {
        let n = JPEGDecodePlan.scaleDenominator(stored: PixelSize(width: width, height: height),
                                                target: PixelSize(width: targetWidth, height: targetHeight))
        #expect(n == expected)
    }

    /// imgproxy's rule (processing/scale_on_load.go): n from the integer part of 1/scale,
    /// 8, 4 or 2 when it is at least that; the expected n below is worked out by hand.
    @Test("imgproxy's shrink-on-load rule: the integer part of the shrink picks 1/8, 1/4 or 1/2", arguments: [
        (4032, 3024, 667, 500, 4), (4032, 3024, 500, 375, 8), (4032, 3024, 1200, 900, 2), (4032, 3024, 2016, 1512, 2),
        (4032, 3024, 2017, 1513, 1), (5250, 3450, 400, 263, 8), (1800, 1200, 300, 200, 4), (100, 75, 100, 75, 1),
    ])
    func imgproxyScaleRule(width: Int, height: Int, targetWidth: Int, targetHeight: Int, expected: Int) {
        let n = JPEGDecodePlan.scaleDenominator(stored: PixelSize(width: width, height: height),
                                                target: PixelSize(width: targetWidth, height: targetHeight), rule: .imgproxy)
        #expect(n == expected)
    }

    @Test("thumbnails are sized in display orientation; stretching and scale-down work")
    func thumbnailOptions() throws {
        let data = try Corpus.data("jpeg/exif-orientation/Landscape_6.jpg")
        let thumb = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 300, height: 300)))
        #expect(thumb.width == 300 && thumb.height == 200)
        let stretched = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 100, height: 100), preserveAspectRatio: false))
        #expect(stretched.width == 100 && stretched.height == 100)
        let limited = try coder.decode(data, options: .init(scaleDownLimitBytes: 600 * 400 * 4))
        #expect(limited.width == 600 && limited.height == 400)
        let small = try Corpus.data("jpeg/wuffs/peacock.default.jpeg")
        let notUp = try coder.decode(small, options: .init(thumbnailPixelSize: PixelSize(width: 1000, height: 1000)))
        #expect(notUp.width == 100 && notUp.height == 75)
    }

    @Test("the pixel limit is checked from the header")
    func pixelLimit() throws {
        let data = try Corpus.data("jpeg/libjpeg-turbo/testorig.jpg")
        #expect(Self.code { try coder.decode(data, options: .init(maxPixelCount: 227 * 149 - 1)) } == .imageTooLarge)
        #expect(Self.code { try coder.decode(data, options: .init(maxPixelCount: 227 * 149)) } == nil)
    }

    // MARK: Colour

    @Test("CMYK and YCCK decode to the same colours as the RGB original", arguments: [
        "jpeg/jpeg-decoder/reftest/ycck.jpg",
        "jpeg/sharp/Channel_digital_image_CMYK_color_no_profile.jpg",
    ])
    func cmyk(path: String) throws {
        // The stored samples, converted naively: ycck.jpg's SWOP profile moves its colours
        // the way a browser shows them (ChromiumReferenceTests checks that), away from rgb.jpg.
        let stored = ImageDecodeOptions(colorManagement: .keepStoredSamples)
        let rgb = try coder.decode(Corpus.data("jpeg/jpeg-decoder/reftest/rgb.jpg"), options: stored)
        let cmyk = try coder.decode(Corpus.data(path), options: stored)
        let difference = Self.meanDifference(cmyk.pixels, rgb.pixels)
        #expect(difference < 8, "mean difference \(difference)")
    }

    @Test("grayscale decodes to equal R, G and B")
    func grayscale() throws {
        let image = try coder.decode(Corpus.data("jpeg/jpeg-decoder/tower_grayscale.jpg"), options: .init())
        let p = image.pixels
        let bytes = p.bytes
        var grey = true, varied = false
        for i in stride(from: 0, to: bytes.count, by: 4 * 97) {
            grey = grey && bytes[i] == bytes[i + 1] && bytes[i] == bytes[i + 2]
            varied = varied || bytes[i] != bytes[0]
        }
        #expect(grey && varied)
    }

    // MARK: Encoding

    @Test("encode then decode gives the same size and close pixels; quality changes the size")
    func roundTrip() throws {
        let original = try coder.decode(Corpus.data("jpeg/wuffs/harvesters.jpeg"), options: .init())
        #expect(coder.canEncode(to: .jpeg) && !coder.canEncode(to: .png))
        let good = try coder.encode(original, as: .jpeg, options: .init(quality: 0.9))
        let decoded = try coder.decode(good, options: .init())
        #expect(decoded.width == original.width && decoded.height == original.height)
        let difference = Self.meanDifference(decoded.pixels, original.pixels)
        #expect(difference < 4, "mean difference \(difference)")
        let poor = try coder.encode(original, as: .jpeg, options: .init(quality: 0.2))
        #expect(poor.count < good.count / 2)
        #expect(throws: WebImageError.self) { try coder.encode(original, as: .png, options: .init()) }
    }

    @Test("transparent pixels are encoded composited over white")
    func alphaOverWhite() throws {
        let size = 32
        let pixels = PixelBuffer(width: size, height: size) { p in
            for i in stride(from: 0, to: p.count, by: 4) {
                p[i] = 0; p[i + 1] = 0; p[i + 2] = 255; p[i + 3] = 128 // half-transparent blue
            }
        }
        let data = try coder.encode(DecodedImage(pixels: pixels, format: .png), as: .jpeg, options: .init(quality: 1))
        let decoded = try coder.decode(data, options: .init())
        let center = try #require(decoded.pixels[size / 2, size / 2])
        let red = Int(center.r), green = Int(center.g)
        #expect(abs(red - 127) < 6)
        #expect(abs(green - 127) < 6)
        #expect(center.b > 245)
        #expect(center.a == 255)
    }
}
