import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("GIFCoder corpus", .timeLimit(.minutes(2)))
struct GIFCoderTests {
    let coder = GIFCoder()

    /// pygif expects this GIF87a animation (no NETSCAPE extension) to loop forever, which
    /// contradicts the rule the issue and the corpus README state (no extension = play once).
    static let loopRuleExceptions: Set<String> = ["gif/pygif/gif87a-animation.gif"]

    @Test("ok files decode with the manifest's size, frames and loop",
          arguments: Corpus.entries(format: "gif", expect: ["ok"]))
    func decodesValidFiles(_ entry: Corpus.Entry) throws {
        let image = try coder.decode(try entry.data(), options: ImageDecodeOptions())
        let display = try #require(entry.display)
        #expect(image.width == display.width && image.height == display.height)
        #expect(image.frames.count == entry.frames)
        if let loop = entry.loop, !Self.loopRuleExceptions.contains(entry.path) {
            #expect(image.loopCount == loop)
        }
        #expect(image.format == .gif)
        #expect(!image.isIncremental)
    }

    @Test("The corpus has GIF rows of every kind")
    func corpusIsPresent() {
        #expect(Corpus.entries(format: "gif", expect: ["ok"]).count > 100)
        #expect(!Corpus.entries(format: "gif", expect: ["fail"]).isEmpty)
        #expect(!Corpus.entries(format: "gif", expect: ["bomb"]).isEmpty)
    }

    @Test("fail files throw a WebImageError", arguments: Corpus.entries(format: "gif", expect: ["fail"]))
    func rejectsInvalidFiles(_ entry: Corpus.Entry) throws {
        let error = #expect(throws: WebImageError.self) { try coder.decode(try entry.data(), options: ImageDecodeOptions()) }
        #expect(error?.code == .badImageData)
    }

    @Test("bomb files throw imageTooLarge", arguments: Corpus.entries(format: "gif", expect: ["bomb"]))
    func rejectsBombs(_ entry: Corpus.Entry) throws {
        let error = #expect(throws: WebImageError.self) { try coder.decode(try entry.data(), options: ImageDecodeOptions()) }
        #expect(error?.code == .imageTooLarge)
    }

    @Test("lenient and nocrash files decode or throw a WebImageError",
          arguments: Corpus.entries(format: "gif", expect: ["lenient", "nocrash"]))
    func toleratesOddFiles(_ entry: Corpus.Entry) throws {
        do {
            let image = try coder.decode(try entry.data(), options: ImageDecodeOptions())
            #expect(!image.frames.isEmpty)
            #expect(image.frames.allSatisfy { $0.pixels.width == image.width && $0.pixels.height == image.height })
        } catch let error as WebImageError {
            #expect([.badImageData, .imageTooLarge].contains(error.code))
        }
    }

    @Test("Frames summing past the pixel limit fail before they are decoded")
    func frameTotalLimit() throws {
        // muybridge.gif: 30x20 canvas, 15 frames = 9000 pixels.
        let data = try Corpus.data("gif/wuffs/muybridge.gif")
        let error = #expect(throws: WebImageError.self) {
            try coder.decode(data, options: ImageDecodeOptions(maxPixelCount: 30 * 20 * 10))
        }
        #expect(error?.code == .imageTooLarge)
        let first = try coder.decode(data, options: ImageDecodeOptions(maxPixelCount: 30 * 20 * 10, firstFrameOnly: true))
        #expect(first.frames.count == 1)
    }

    @Test("The canvas is checked against the limit from the header")
    func canvasLimit() throws {
        let data = try Corpus.data("gif/large/harvesters.gif")
        let error = #expect(throws: WebImageError.self) {
            try coder.decode(data, options: ImageDecodeOptions(maxPixelCount: 1165 * 859 - 1))
        }
        #expect(error?.code == .imageTooLarge)
    }

    @Test("Empty and non-GIF data fail with badImageData")
    func garbage() {
        for bytes in [[], Array("GIF89a".utf8), Array("GIF89a\u{1}\u{0}\u{1}\u{0}\u{0}\u{0}\u{0};".utf8), [0x47, 0x49, 0x46]] {
            let error = #expect(throws: WebImageError.self) { try coder.decode(Data(bytes), options: ImageDecodeOptions()) }
            #expect(error?.code == .badImageData)
        }
    }

    @Test("Randomly damaged files decode or fail cleanly",
          arguments: ["gif/wuffs/muybridge.gif", "gif/pygif/max-codes.gif", "gif/gif-test-suite/animated_loop_interlaced.gif"])
    func damagedFiles(_ path: String) throws {
        let original = [UInt8](try Corpus.data(path))
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: seed >> 33)
        }
        for _ in 0..<150 {
            var bytes = original
            for _ in 0..<(1 + next() % 4) {
                let at = 6 + next() % (bytes.count - 6)
                bytes[at] = UInt8(truncatingIfNeeded: next())
            }
            do {
                let image = try coder.decode(Data(bytes), options: ImageDecodeOptions())
                #expect(!image.frames.isEmpty)
            } catch {
                #expect([.badImageData, .imageTooLarge].contains(error.code))
            }
        }
    }

    @Test("Registered among the built-in coders")
    func registered() throws {
        #expect(ImageCodersManager.builtInCoders.contains { $0 is GIFCoder })
        let image = try ImageCodersManager(coders: ImageCodersManager.builtInCoders)
            .decode(try Corpus.data("gif/wuffs/muybridge.gif"), options: ImageDecodeOptions())
        #expect(image.frames.count == 15)
    }
}
