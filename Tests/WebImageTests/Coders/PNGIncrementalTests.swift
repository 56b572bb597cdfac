import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("PNGIncrementalDecoder: partial images while loading", .timeLimit(.minutes(2)))
struct PNGIncrementalTests {
    let coder = PNGCoder()

    /// Feeds `data` in `step`-byte pieces; returns the partial images and the final one.
    func feed(_ data: Data, step: Int, options: ImageDecodeOptions = .init()) throws -> (partials: [DecodedImage], final: DecodedImage?) {
        let decoder = coder.makeIncrementalDecoder(options: options)
        var partials: [DecodedImage] = []
        var end = step
        while end < data.count {
            if let image = try decoder.decode(data.prefix(end), isComplete: false) { partials.append(image) }
            end += step
        }
        return (partials, try decoder.decode(data, isComplete: true))
    }

    /// Rows, from the top, in which every pixel has been written (is opaque).
    static func opaqueRows(_ image: DecodedImage) -> Int {
        let p = image.pixels
        for y in 0..<p.height {
            for x in 0..<p.width where p[x, y]?.a != 255 { return y }
        }
        return p.height
    }

    @Test("a plain PNG shows more rows over time, then equals a one-shot decode")
    func rowByRow() throws {
        let data = try Corpus.data("png/wuffs/hippopotamus.regular.png")
        let (partials, final) = try feed(data, step: data.count / 12)
        let oneShot = try coder.decode(data, options: .init())
        #expect(partials.count >= 5)
        #expect(partials.allSatisfy { $0.isIncremental && $0.width == oneShot.width && $0.height == oneShot.height })
        let rows = partials.map(Self.opaqueRows)
        #expect(rows == rows.sorted())
        #expect((rows.first ?? 0) < oneShot.height && (rows.last ?? 0) > (rows.first ?? 0))
        // Rows not decoded yet are transparent.
        let early = try #require(partials.first)
        #expect(early.pixels[0, early.height - 1]?.a == 0)
        let result = try #require(final)
        #expect(!result.isIncremental)
        #expect(result == oneShot)
    }

    @Test("an interlaced PNG shows a coarse whole image early, then equals a one-shot decode")
    func interlaced() throws {
        let data = try Corpus.data("png/wuffs/hippopotamus.interlaced.png")
        let (partials, final) = try feed(data, step: data.count / 10)
        let oneShot = try coder.decode(data, options: .init())
        #expect(try #require(final) == oneShot)
        // Once pass 1 is in, every pixel holds a value (the image is opaque).
        let firstWhole = try #require(partials.firstIndex { Self.opaqueRows($0) == $0.height })
        #expect(partials[firstWhole].pixels != oneShot.pixels)
        #expect(firstWhole < partials.count - 1)
    }

    @Test("the final image of a file fed byte-range by byte-range equals one-shot decoding",
          arguments: ["png/pngsuite/basi3p02.png", "png/pngsuite/basn6a16.png", "png/pngsuite/s09i3p02.png",
                      "png/pngsuite/tbrn2c08.png", "png/wuffs/muybridge.apng"])
    func finalEqualsOneShot(path: String) throws {
        let data = try Corpus.data(path)
        let (_, final) = try feed(data, step: 37)
        #expect(try #require(final) == (try coder.decode(data, options: .init())))
    }

    @Test("thumbnail options apply to partial and final images")
    func thumbnail() throws {
        let data = try Corpus.data("png/wuffs/hippopotamus.regular.png")
        let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20))
        let (partials, final) = try feed(data, step: data.count / 4, options: options)
        let oneShot = try coder.decode(data, options: options)
        #expect(partials.allSatisfy { $0.width == oneShot.width && $0.height == oneShot.height })
        #expect(try #require(final) == oneShot)
    }

    @Test("an APNG shows only its first frame until complete")
    func animation() throws {
        let data = try Corpus.data("png/wuffs/animated-red-blue.apng")
        let (partials, final) = try feed(data, step: 64)
        #expect(!partials.isEmpty)
        #expect(partials.allSatisfy { $0.frames.count == 1 && $0.isIncremental && $0.format == .apng })
        #expect(try #require(final).frames.count == 4)
    }

    @Test("nothing is shown before the first row, nor for an APNG whose default image is hidden")
    func nothingYet() throws {
        let data = try Corpus.data("png/wuffs/hippopotamus.regular.png")
        #expect(try coder.makeIncrementalDecoder(options: .init()).decode(data.prefix(40), isComplete: false) == nil)
        let hidden = PNGSynth.apng(width: 2, height: 2, plays: 0, frames: [
            .init(width: 2, height: 2, rgba: PNGSynth.fill([0, 255, 0, 255], count: 4)),
        ], hiddenDefault: PNGSynth.fill([0, 0, 255, 255], count: 4))
        let decoder = coder.makeIncrementalDecoder(options: .init())
        #expect(try decoder.decode(hidden.prefix(hidden.count - 12), isComplete: false) == nil)
        #expect(try decoder.decode(hidden, isComplete: true)?.pixels[0, 0] == RGBA(r: 0, g: 255, b: 0))
    }

    @Test("truncated and corrupt files never crash: partials or errors", arguments: [
        "png/sharp/truncated.png", "png/wuffs/hippopotamus.interlaced.truncated.png",
        "png/wuffs/hippopotamus.regular.truncated.png", "png/pillow/truncated_image.png",
        "png/pngsuite/xcsn0g01.png", "png/pngsuite/xhdn0g08.png", "png/pillow/broken_data_stream.png",
    ])
    func truncated(path: String) throws {
        let data = try Corpus.data(path)
        do {
            let (partials, final) = try feed(data, step: max(1, data.count / 7))
            #expect(partials.allSatisfy { $0.isIncremental })
            #expect(final != nil)
        } catch let error as WebImageError {
            #expect(error.code == .badImageData, "\(error)")
        }
    }

    @Test("a truncated prefix given as complete fails cleanly")
    func prefixAsComplete() throws {
        let data = try Corpus.data("png/wuffs/hippopotamus.regular.png")
        let decoder = coder.makeIncrementalDecoder(options: .init())
        _ = try decoder.decode(data.prefix(data.count / 2), isComplete: false)
        let error = try #require(throws: WebImageError.self) { try decoder.decode(data.prefix(data.count / 2), isComplete: true) }
        #expect(error.code == .badImageData)
    }

    @Test("the pixel limit is checked from the header of partial data")
    func bomb() throws {
        let data = try Corpus.data("png/sharp/65536-uint32-limit.png")
        let decoder = coder.makeIncrementalDecoder(options: .init())
        let error = try #require(throws: WebImageError.self) { try decoder.decode(data.prefix(4096), isComplete: false) }
        #expect(error.code == .imageTooLarge)
    }

    @Test("the shared manager hands PNG data to the progressive decoder")
    func throughManager() throws {
        let data = try Corpus.data("png/wuffs/hippopotamus.regular.png")
        let decoder = ImageCodersManager.shared.makeIncrementalDecoder(options: .init())
        let partial = try #require(try decoder.decode(data.prefix(data.count / 2), isComplete: false))
        #expect(partial.isIncremental)
        #expect(try decoder.decode(data, isComplete: true) == (try coder.decode(data, options: .init())))
    }
}

