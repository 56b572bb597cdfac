import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("PNGCoder: PngSuite and the corpus", .timeLimit(.minutes(2)))
struct PNGCoderTests {
    let coder = PNGCoder()

    static let okFiles = Corpus.entries(format: "png", expect: ["ok"])
    static let failFiles = Corpus.entries(format: "png", expect: ["fail"]) + Corpus.entries(format: "png(unknown)", expect: ["fail"])
    static let lenientFiles = Corpus.entries(format: "png", expect: ["lenient", "nocrash"])

    @Test("the corpus has PNG rows")
    func corpusPresent() {
        #expect(Self.okFiles.count > 150)
        #expect(Self.failFiles.count > 20)
    }

    @Test("every valid PNG decodes with its display size", arguments: okFiles)
    func decodesValid(entry: Corpus.Entry) throws {
        let image = try coder.decode(try entry.data(), options: .init())
        let display = try #require(entry.display)
        #expect(image.width == display.width && image.height == display.height)
        #expect(image.frames.count == (entry.frames ?? 1))
        #expect(image.pixels.bytes.count == display.width * display.height * 4)
        #expect(!image.isIncremental)
    }

    @Test("corrupt PNGs fail with badImageData", arguments: failFiles)
    func rejectsCorrupt(entry: Corpus.Entry) throws {
        let error = try #require(throws: WebImageError.self) { try coder.decode(try entry.data(), options: .init()) }
        #expect(error.code == .badImageData, "\(error)")
    }

    @Test("lenient and fuzz files decode or fail cleanly", arguments: lenientFiles)
    func lenient(entry: Corpus.Entry) throws {
        do {
            let image = try coder.decode(try entry.data(), options: .init())
            #expect(image.width > 0 && image.height > 0)
        } catch let error as WebImageError {
            #expect(error.code == .badImageData, "\(error)")
        }
    }

    @Test("a 65536×65536 header is refused before allocating")
    func bomb() throws {
        for entry in Corpus.entries(format: "png", expect: ["bomb"]) {
            let error = try #require(throws: WebImageError.self) { try coder.decode(try entry.data(), options: .init()) }
            #expect(error.code == .imageTooLarge)
        }
        #expect(!Corpus.entries(format: "png", expect: ["bomb"]).isEmpty)
    }

    @Test("the pixel limit is the header's width × height")
    func pixelLimit() throws {
        let data = try Corpus.data("png/pngsuite/basn2c08.png")  // 32×32
        #expect(try coder.decode(data, options: .init(maxPixelCount: 1024)).width == 32)
        let error = try #require(throws: WebImageError.self) { try coder.decode(data, options: .init(maxPixelCount: 1023)) }
        #expect(error.code == .imageTooLarge)
    }

    @Test("a 1-bit gray image is pure black and white, opaque")
    func oneBitGray() throws {
        let image = try coder.decode(try Corpus.data("png/pngsuite/basn0g01.png"), options: .init())
        var values = Set<UInt8>()
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = try #require(image.pixels[x, y])
                #expect(p.r == p.g && p.g == p.b && p.a == 255)
                values.insert(p.r)
            }
        }
        #expect(values == [0, 255])
    }

    @Test("tRNS makes pixels transparent", arguments: ["tbbn3p08.png", "tbrn2c08.png", "tbwn0g16.png"])
    func transparency(name: String) throws {
        let image = try coder.decode(try Corpus.data("png/pngsuite/" + name), options: .init())
        #expect(image.hasAlpha)
        #expect(image.pixels.bytes.enumerated().contains { $0.offset % 4 == 3 && $0.element == 0 })
    }

    @Test("Adam7 interlaced files decode to the same pixels as their plain twins",
          arguments: ["0g01", "0g08", "0g16", "2c08", "2c16", "3p02", "3p08", "4a08", "6a16"])
    func interlaced(kind: String) throws {
        let plain = try coder.decode(try Corpus.data("png/pngsuite/basn\(kind).png"), options: .init())
        let adam7 = try coder.decode(try Corpus.data("png/pngsuite/basi\(kind).png"), options: .init())
        #expect(plain.pixels == adam7.pixels)
    }

    @Test("16-bit samples decode to the same pixels as their 8-bit values")
    func sixteenBit() throws {
        // 3×2 RGB with varied values; the 16-bit file stores each value v as v·257.
        let values: [UInt8] = [0, 1, 127, 128, 254, 255, 10, 20, 30, 200, 100, 50, 7, 77, 177, 33, 66, 99]
        let eight = PNGSynth.png(width: 3, height: 2, depth: 8, colorType: 2, samples: values)
        let sixteen = PNGSynth.png(width: 3, height: 2, depth: 16, colorType: 2, samples: values.flatMap { v -> [UInt8] in [v, v] })
        let a = try coder.decode(eight, options: .init())
        let b = try coder.decode(sixteen, options: .init())
        #expect(a.pixels == b.pixels)
        #expect(a.pixels[1, 0] == RGBA(r: 128, g: 254, b: 255, a: 255))
    }

    @Test("a thumbnail is resampled to the target size")
    func thumbnail() throws {
        let data = try Corpus.data("png/wuffs/hippopotamus.regular.png")
        let full = try coder.decode(data, options: .init())
        let thumb = try coder.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 16, height: 16)))
        let expected = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))
            .targetSize(for: PixelSize(width: full.width, height: full.height))
        #expect(thumb.width == expected.width && thumb.height == expected.height)
        #expect(thumb.width <= 16 && thumb.height <= 16)
    }

    @Test("a thumbnail decoded a strip at a time equals the whole image resampled",
          arguments: [(UInt8(2), false), (UInt8(6), false), (UInt8(2), true), (UInt8(6), true)])
    func streamedThumbnail(colorType: UInt8, turned: Bool) throws {
        // 97×61, a gradient with noise (and a translucent ramp with colour type 6), taller
        // than one strip; optionally orientation 6, so the box applies to the turned image.
        let width = 97, height = 61, channels = colorType == 6 ? 4 : 3
        var seed: UInt32 = 7
        var samples: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                samples += [UInt8(x * 255 / width), UInt8(y * 255 / height), UInt8(seed >> 24)]
                if channels == 4 { samples.append(UInt8((x + y) * 255 / (width + height))) }
            }
        }
        var data = PNGSynth.png(width: width, height: height, depth: 8, colorType: colorType, samples: samples)
        if turned {
            let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
            data.insert(contentsOf: PNGSynth.chunk("eXIf", tiff), at: 33)  // after IHDR
        }
        let box = PixelSize(width: 20, height: 20)
        let thumb = try coder.decode(data, options: .init(thumbnailPixelSize: box))
        // The reference: the whole stored image, resampled (as before strips) and turned.
        let whole = try coder.decode(data, options: .init(applyOrientation: false)).pixels
        let display = turned ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
        let target = ImageDecodeOptions(thumbnailPixelSize: box).targetSize(for: display)
        var expected = turned ? whole.resampled(width: target.height, height: target.width)
                              : whole.resampled(width: target.width, height: target.height)
        if turned { expected = expected.oriented(.right) }
        #expect(thumb.width == target.width && thumb.height == target.height)
        #expect(thumb.pixels == expected)
    }

    @Test("an eXIf orientation is read and applied, unless turned off")
    func exifOrientation() throws {
        // 3×2 stored; orientation 6 (rotate 90° clockwise) displays 2×3.
        let reds: [UInt8] = [0, 1, 2, 3, 4, 5]
        var samples: [UInt8] = []
        for red in reds { samples += [red, 0, 0] }
        var data = PNGSynth.png(width: 3, height: 2, depth: 8, colorType: 2, samples: samples)
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        data.insert(contentsOf: PNGSynth.chunk("eXIf", tiff), at: 33)  // after IHDR
        let upright = try coder.decode(data, options: .init())
        #expect(upright.orientation == .right)
        #expect(upright.width == 2 && upright.height == 3)
        // Rotating clockwise puts the bottom-left stored pixel (red 3) at the top left.
        #expect(upright.pixels[0, 0]?.r == 3 && upright.pixels[1, 0]?.r == 0)
        let stored = try coder.decode(data, options: .init(applyOrientation: false))
        #expect(stored.orientation == .right && stored.width == 3 && stored.pixels[0, 1]?.r == 3)
    }

    @Test("the corpus eXIf file declares orientation 6")
    func corpusEXIF() throws {
        let image = try coder.decode(try Corpus.data("png/image-png/F-exif-chunk-early.png"), options: .init())
        #expect(image.orientation == .right)
    }

    @Test("encode then decode is lossless, with and without alpha",
          arguments: ["basn6a08.png", "basn2c08.png", "tbbn3p08.png"])
    func roundTrip(name: String) throws {
        let image = try coder.decode(try Corpus.data("png/pngsuite/" + name), options: .init())
        let encoded = try coder.encode(image, as: .png, options: .init())
        #expect(ImageFormat.detect(encoded) == .png)
        let again = try coder.decode(encoded, options: .init())
        #expect(again.pixels == image.pixels)
    }

    @Test("empty, short and foreign data fail with badImageData")
    func garbage() throws {
        for data in [Data(), Data([0x89, 0x50, 0x4E]), Data(PNGSynth.chunk("IHDR", [1, 2, 3]))] {
            let error = try #require(throws: WebImageError.self) { try coder.decode(data, options: .init()) }
            #expect(error.code == .badImageData)
        }
    }

    @Test("the shared manager decodes PNG")
    func registered() throws {
        let image = try ImageCodersManager.shared.decode(try Corpus.data("png/pngsuite/basn2c08.png"), options: .init())
        #expect(image.format == .png && image.width == 32)
    }
}
