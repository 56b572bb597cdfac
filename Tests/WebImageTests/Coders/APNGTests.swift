import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("PNGCoder: APNG animation", .timeLimit(.minutes(2)))
struct APNGTests {
    let coder = PNGCoder()

    static let files = Corpus.entries(format: "apng", expect: ["ok", "lenient", "nocrash"])

    @Test("every APNG in the corpus has its size, frames and loop count", arguments: files)
    func corpus(entry: Corpus.Entry) throws {
        let image = try coder.decode(try entry.data(), options: .init())
        let display = try #require(entry.display)
        #expect(image.width == display.width && image.height == display.height)
        #expect(image.frames.count == Self.expectedFrames(entry))
        #expect(image.loopCount == entry.loop)
        #expect(image.format == .apng)
        #expect(image.frames.allSatisfy { $0.duration >= 0 })
    }

    /// The MANIFEST counts frames as Pillow does, including a default image that is not
    /// part of the animation (apng-skip-idat.png: acTL says 2 frames, MANIFEST 3). The APNG
    /// spec and browsers do not show that image, and neither do we.
    static func expectedFrames(_ entry: Corpus.Entry) -> Int? {
        entry.path.hasSuffix("apng-skip-idat.png") ? entry.frames.map { $0 - 1 } : entry.frames
    }

    @Test("durations come from delay_num/delay_den, the loop count from num_plays")
    func timing() throws {
        let image = try coder.decode(Self.sample, options: .init())
        #expect(image.loopCount == 2)
        #expect(image.frames.map(\.duration) == [0.1, 0.05, 0.25, 1])
    }

    @Test("a real file's frame delays")
    func corpusTiming() throws {
        let image = try coder.decode(try Corpus.data("png/wuffs/animated-red-blue.apng"), options: .init())
        #expect(image.frames.map(\.duration) == [0.1, 0.2, 0.3, 0.4])
        #expect(abs(image.duration - 1.0) < 1e-9)
    }

    /// A 4×4 APNG exercising each dispose and blend op:
    /// 0. opaque red everywhere (source, dispose none);
    /// 1. 2×2 blue at alpha 128 at (1,1), blended over, then disposed to background;
    /// 2. 1×1 green at (0,0), source, then disposed to previous;
    /// 3. 1×1 fully transparent at (3,3), blended over (changes nothing).
    static let sample: Data = {
        let red = PNGSynth.fill([255, 0, 0, 255], count: 16)
        return PNGSynth.apng(width: 4, height: 4, plays: 2, frames: [
            .init(width: 4, height: 4, delayNum: 1, delayDen: 10, dispose: 0, blend: 0, rgba: red),
            .init(x: 1, y: 1, width: 2, height: 2, delayNum: 5, delayDen: 0, dispose: 1, blend: 1,
                  rgba: PNGSynth.fill([0, 0, 255, 128], count: 4)),
            .init(width: 1, height: 1, delayNum: 1, delayDen: 4, dispose: 2, blend: 0, rgba: [0, 255, 0, 255]),
            .init(x: 3, y: 3, width: 1, height: 1, delayNum: 1, delayDen: 1, dispose: 0, blend: 1, rgba: [9, 9, 9, 0]),
        ])
    }()

    @Test("dispose and blend ops compose the canvas as the APNG spec says")
    func composition() throws {
        let frames = try coder.decode(Self.sample, options: .init()).frames.map(\.pixels)
        try #require(frames.count == 4)
        let red = RGBA(r: 255, g: 0, b: 0), clear = RGBA(r: 0, g: 0, b: 0, a: 0)
        #expect(frames[0][1, 1] == red)
        // Non-premultiplied "over": half-transparent blue on opaque red.
        #expect(frames[1][1, 1] == RGBA(r: 127, g: 0, b: 128, a: 255))
        #expect(frames[1][0, 0] == red && frames[1][3, 3] == red)
        // Frame 1's rectangle was cleared to transparent; frame 2 painted green on top.
        #expect(frames[2][1, 1] == clear && frames[2][2, 2] == clear)
        #expect(frames[2][0, 0] == RGBA(r: 0, g: 255, b: 0))
        // Frame 2 was disposed to previous: red again under it.
        #expect(frames[3][0, 0] == red && frames[3][1, 1] == clear && frames[3][3, 3] == red)
    }

    @Test("over onto transparent keeps the source colour; source replaces")
    func blendOntoTransparent() throws {
        let data = PNGSynth.apng(width: 2, height: 1, plays: 0, frames: [
            .init(width: 2, height: 1, dispose: 0, blend: 0, rgba: [10, 20, 30, 100, 0, 0, 0, 0]),
            .init(width: 2, height: 1, dispose: 0, blend: 1, rgba: [0, 0, 0, 0, 200, 100, 50, 60]),
            .init(width: 1, height: 1, dispose: 0, blend: 0, rgba: [1, 2, 3, 0]),
        ])
        let frames = try coder.decode(data, options: .init()).frames.map(\.pixels)
        #expect(frames[1][0, 0] == RGBA(r: 10, g: 20, b: 30, a: 100))
        #expect(frames[1][1, 0] == RGBA(r: 200, g: 100, b: 50, a: 60))
        #expect(frames[2][0, 0] == RGBA(r: 1, g: 2, b: 3, a: 0))
    }

    @Test("a default image before the first fcTL is not a frame")
    func hiddenDefault() throws {
        let blue = PNGSynth.fill([0, 0, 255, 255], count: 4)
        let green = PNGSynth.fill([0, 255, 0, 255], count: 4)
        let data = PNGSynth.apng(width: 2, height: 2, plays: 0, frames: [
            .init(width: 2, height: 2, rgba: green),
        ], hiddenDefault: blue)
        let image = try coder.decode(data, options: .init())
        #expect(image.frames.count == 1)
        #expect(image.pixels[0, 0] == RGBA(r: 0, g: 255, b: 0))
    }

    @Test("firstFrameOnly decodes one frame")
    func firstFrameOnly() throws {
        let data = try Corpus.data("png/wuffs/muybridge.apng")
        let all = try coder.decode(data, options: .init())
        let first = try coder.decode(data, options: .init(firstFrameOnly: true))
        #expect(first.frames.count == 1 && all.frames.count == 15)
        #expect(first.pixels == all.pixels)
    }

    @Test("the pixel limit counts canvas × frames")
    func pixelLimit() throws {
        let data = try Corpus.data("png/wuffs/muybridge.apng")  // 30×20, 15 frames
        #expect(try coder.decode(data, options: .init(maxPixelCount: 9000)).frames.count == 15)
        let error = try #require(throws: WebImageError.self) { try coder.decode(data, options: .init(maxPixelCount: 8999)) }
        #expect(error.code == .imageTooLarge)
        #expect(try coder.decode(data, options: .init(maxPixelCount: 600, firstFrameOnly: true)).frames.count == 1)
    }

    @Test("a CRC error in frame data fails")
    func crcError() throws {
        var data = try Corpus.data("png/wuffs/animated-red-blue.apng")
        let fdAT = try #require(data.firstRange(of: Data("fdAT".utf8)))
        data[fdAT.upperBound + 6] ^= 0xFF
        let error = try #require(throws: WebImageError.self) { try coder.decode(data, options: .init()) }
        #expect(error.code == .badImageData)
    }

    @Test("a frame outside the canvas fails")
    func frameOutsideCanvas() throws {
        let data = PNGSynth.apng(width: 2, height: 2, plays: 0, frames: [
            .init(width: 2, height: 2, rgba: [UInt8](repeating: 255, count: 16)),
            .init(x: 1, y: 1, width: 2, height: 2, rgba: [UInt8](repeating: 255, count: 16)),
        ])
        let error = try #require(throws: WebImageError.self) { try coder.decode(data, options: .init()) }
        #expect(error.code == .badImageData)
    }

    @Test("thumbnails scale every frame")
    func thumbnail() throws {
        let image = try coder.decode(try Corpus.data("png/wuffs/animated-red-blue.apng"),
                                     options: .init(thumbnailPixelSize: PixelSize(width: 32, height: 32)))
        #expect(image.width == 32 && image.height == 24 && image.frames.count == 4)
    }

    @Test("encoding an animation writes its first frame")
    func encodeFirstFrame() throws {
        let image = try coder.decode(Self.sample, options: .init())
        let again = try coder.decode(try coder.encode(image, as: .png, options: .init()), options: .init())
        #expect(again.frames.count == 1 && again.pixels == image.pixels)
    }
    @Test("damaged bytes anywhere give an image or a WebImageError, never a crash",
          arguments: ["png/wuffs/animated-red-blue.apng", "png/pngsuite/basi3p02.png", "png/pngsuite/tbrn2c08.png"])
    func damaged(path: String) throws {
        let original = try Corpus.data(path)
        // A fixed pseudo-random walk, so a failure reproduces.
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<150 {
            var data = original
            for _ in 0..<3 {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let index = Int((seed >> 33) % UInt64(data.count - 8)) + 8
                data[index] = UInt8(truncatingIfNeeded: seed >> 13)
            }
            do {
                let image = try coder.decode(data, options: .init())
                #expect(image.frames.allSatisfy { $0.pixels.bytes.count == image.width * image.height * 4 })
            } catch {
                #expect(error.code == .badImageData || error.code == .imageTooLarge, "\(error)")
            }
            let decoder = coder.makeIncrementalDecoder(options: .init())
            _ = try? decoder.decode(data.prefix(data.count / 2), isComplete: false)
            _ = try? decoder.decode(data, isComplete: true)
        }
    }

    @Test("a truncated animation fails like a truncated still image")
    func truncated() throws {
        let data = try Corpus.data("png/wuffs/muybridge.apng")
        for length in [data.count - 12, data.count / 2, 100] {
            let error = try #require(throws: WebImageError.self) { try coder.decode(data.prefix(length), options: .init()) }
            #expect(error.code == .badImageData)
        }
    }
}
