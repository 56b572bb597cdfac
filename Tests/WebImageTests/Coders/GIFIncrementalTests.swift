import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("GIF incremental decoding", .timeLimit(.minutes(1)))
struct GIFIncrementalTests {
    /// Offset just past the first frame's LZW data (its block terminator).
    static func endOfFirstFrame(_ data: Data) throws -> Int {
        for end in 14...data.count {
            if let image = try GIFIncrementalDecoder().decode(data.prefix(end), isComplete: false) {
                #expect(image.frames.count == 1)
                return end
            }
        }
        Issue.record("no partial image")
        return data.count
    }

    @Test("nil until the first frame is complete, then that frame; the final call decodes all")
    func firstFrameThenAll() throws {
        let data = try Corpus.data("gif/wuffs/muybridge.gif")
        let full = try GIFCoder().decode(data, options: ImageDecodeOptions())
        let decoder = GIFIncrementalDecoder()
        var firstSeen: Int?
        for end in stride(from: 0, to: data.count, by: 97) {
            let partial = try decoder.decode(data.prefix(end), isComplete: false)
            if let partial {
                firstSeen = firstSeen ?? end
                #expect(partial.isIncremental)
                #expect(partial.frames.count == 1)
                #expect(partial.pixels == full.pixels)
            }
        }
        let boundary = try Self.endOfFirstFrame(data)
        let seen = try #require(firstSeen)
        #expect(seen >= boundary)
        #expect(try GIFIncrementalDecoder().decode(data.prefix(boundary - 1), isComplete: false) == nil)
        let final = try #require(try decoder.decode(data, isComplete: true))
        #expect(!final.isIncremental)
        #expect(final == full)
    }

    @Test("Every truncation point of several files is handled without a crash",
          arguments: ["gif/wuffs/muybridge.gif", "gif/gif-test-suite/animated_loop_interlaced.gif",
                      "gif/pygif/dispose-restore-previous.gif", "gif/wuffs/hippopotamus.interlaced.gif",
                      "gif/image-gif/beacon_xmp.gif", "gif/pillow/decompression_bomb_extents.gif"])
    func everyTruncation(_ path: String) throws {
        let data = try Corpus.data(path)
        let step = max(1, data.count / 400)
        for end in stride(from: 0, through: data.count, by: step) {
            let prefix = data.prefix(end)
            do { _ = try GIFIncrementalDecoder().decode(prefix, isComplete: false) }
            catch let error as WebImageError { #expect(error.code == .imageTooLarge, "\(end): \(error)") }
            do { _ = try GIFCoder().decode(prefix, options: ImageDecodeOptions()) }
            catch { #expect([.badImageData, .imageTooLarge].contains(error.code)) }
        }
    }

    @Test("Data that is not a GIF fails once the signature is known")
    func notAGIF() throws {
        let decoder = GIFIncrementalDecoder()
        #expect(try decoder.decode(Data("GIF".utf8), isComplete: false) == nil)
        let error = #expect(throws: WebImageError.self) {
            try decoder.decode(Data("\u{89}PNG\r\n\u{1a}\n and more bytes".utf8), isComplete: false)
        }
        #expect(error?.code == .badImageData)
    }

    @Test("The shared manager hands GIF transfers to the GIF decoder")
    func managerPicksGIF() throws {
        let data = try Corpus.data("gif/wuffs/muybridge.gif")
        let manager = ImageCodersManager(coders: [GIFCoder()])
        #expect(manager.canDecodeIncrementally(data.prefix(6)))
        let decoder = manager.makeIncrementalDecoder(options: ImageDecodeOptions())
        #expect(try decoder.decode(data.prefix(20), isComplete: false) == nil)
        let partial = try #require(try decoder.decode(data.prefix(data.count - 1), isComplete: false))
        #expect(partial.isIncremental && partial.frames.count == 1)
    }
}
