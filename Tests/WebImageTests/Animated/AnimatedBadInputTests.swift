import Foundation
import Testing
@testable import WebImageCodecs

/// Damaged and hostile animations: cut-short files keep their complete frames and say so,
/// a damaged frame ends the animation there, limits apply before any pixel exists, frames
/// outside the canvas are clipped.
@Suite("Animated images: bad input", .timeLimit(.minutes(1)))
struct AnimatedBadInputTests {
    @Test("A GIF cut short gives the frames that are complete, then a flag", arguments: [0.2, 0.5, 0.93])
    func truncatedGIF(_ fraction: Double) throws {
        let full = try Corpus.data("gif/image-gif/gifplayer-muybridge.gif")
        let eager = try GIFCoder().decode(full, options: .init())
        let cut = full.prefix(Int(Double(full.count) * fraction))
        let lazy = try #require(try AnimatedImage(data: Data(cut)))
        #expect(lazy.info.isTruncated && lazy.isTruncated)
        let count = lazy.info.frameCount
        #expect(count > 1 && count < eager.frames.count)
        // The eager decoder of the same bytes stops at the same place.
        #expect(try GIFCoder().decode(Data(cut), options: .init()).frames.count == count)
        for index in [count - 1, 0, count / 2] {
            #expect(try lazy.frame(at: index) == eager.frames[index])
        }
        #expect(throws: WebImageError.self) { try lazy.frame(at: count) }
    }

    @Test("An APNG cut short gives its complete frames, then a flag (the eager decoder refuses it)")
    func truncatedAPNG() throws {
        let full = try Corpus.data("png/sdwebimage/TestImageAnimated.apng")
        let eager = try PNGCoder().decode(full, options: .init())
        let cut = Data(full.prefix(full.count / 2))
        #expect(throws: WebImageError.self) { try PNGCoder().decode(cut, options: .init()) }
        let lazy = try #require(try AnimatedImage(data: cut))
        #expect(lazy.isTruncated)
        let count = lazy.info.frameCount
        #expect(count > 1 && count < eager.frames.count)
        try lazy.forEachFrame { index, frame in #expect(frame == eager.frames[index]) }
        let image = try lazy.decodedImage()
        #expect(image.isIncremental && image.frames.count == count)
    }

    @Test("An animated WebP cut short gives its complete frames, then a flag (the eager decoder refuses it)")
    func truncatedWebP() throws {
        let full = try Corpus.data("webp/pillow/iss634.webp")
        let eager = try WebPCoder().decode(full, options: .init())
        let cut = Data(full.prefix(full.count * 3 / 5))
        #expect(throws: WebImageError.self) { try WebPCoder().decode(cut, options: .init()) }
        let lazy = try #require(try AnimatedImage(data: cut))
        #expect(lazy.isTruncated)
        let count = lazy.info.frameCount
        #expect(count > 1 && count < eager.frames.count)
        #expect(lazy.info.durations == Array(eager.frames.prefix(count).map(\.duration)))
        try lazy.forEachFrame { index, frame in #expect(frame == eager.frames[index], "frame \(index)") }
    }

    @Test("A damaged frame ends the animation there: earlier frames stay, later ones fail, the flag is set")
    func damagedFrame() throws {
        var bytes = [UInt8](try Corpus.data("gif/image-gif/moon_impact.gif"))
        let eager = try GIFCoder().decode(Data(bytes), options: .init())
        // Give image 5 an LZW code size giflib refuses (12).
        let scan = GIFAnimationScan(bytes)
        var offset = scan.images[5].recordOffset
        while bytes[offset] == 0x21 {  // skip the extensions before the image
            offset += 2
            while bytes[offset] != 0 { offset += Int(bytes[offset]) + 1 }
            offset += 1
        }
        #expect(bytes[offset] == 0x2C)
        let flags = bytes[offset + 9]
        let codeSizeAt = offset + 10 + (flags & 0x80 != 0 ? 3 << (Int(flags & 0x07) + 1) : 0)
        bytes[codeSizeAt] = 12
        let lazy = try #require(try AnimatedImage(data: Data(bytes)))
        #expect(lazy.info.frameCount == eager.frames.count, "the structure is intact")
        #expect(!lazy.isTruncated)
        for index in 0..<5 { #expect(try lazy.frame(at: index) == eager.frames[index]) }
        let error = try #require(throws: WebImageError.self) { try lazy.frame(at: 5) }
        #expect(error.code == .badImageData)
        #expect(lazy.isTruncated && lazy.availableFrameCount == 5)
        #expect(throws: WebImageError.self) { try lazy.frame(at: 9) }
        let image = try lazy.decodedImage()
        #expect(image.frames.count == 5 && image.isIncremental)
        #expect(try lazy.frame(at: 2) == eager.frames[2], "earlier frames still decode")
    }

    @Test("Canvas × frames over the pixel limit is imageTooLarge when opened, before any pixel")
    func limits() throws {
        func code(_ data: Data, _ options: ImageDecodeOptions) -> WebImageError.Code? {
            do {
                _ = try AnimatedImage(data: data, options: options)
                return nil
            } catch {
                return error.code
            }
        }
        let limit = ImageDecodeOptions(maxPixelCount: 1_000_000)
        // 200×200 × 26 frames = 1.04 M pixels; 25 frames would pass.
        #expect(code(BombFiles.gifFrames(width: 200, height: 200, frames: 26), limit) == .imageTooLarge)
        #expect(code(BombFiles.gifFrames(width: 200, height: 200, frames: 25), limit) == nil)
        #expect(code(BombFiles.gif(), ImageDecodeOptions()) == .imageTooLarge)
        // 320×240 × 101 frames; 600×600 × 16 frames.
        #expect(code(try Corpus.data("png/sdwebimage/TestImageAnimated.apng"), limit) == .imageTooLarge)
        #expect(code(try Corpus.data("webp/sdwebimage/TestAnimatedImageMemory.webp"), ImageDecodeOptions(maxPixelCount: 4_000_000))
                == .imageTooLarge)
        // The corpus bombs: refused, or (one truncated image) not an animation at all.
        for bomb in Corpus.entries.filter({ $0.expect == "bomb" && ["gif", "apng", "webp"].contains($0.format) }) {
            let data = try bomb.data()
            #expect(code(data, ImageDecodeOptions()) == .imageTooLarge || ((try? AnimatedImage(data: data)) ?? nil) == nil,
                    "\(bomb)")
        }
    }

    @Test("Frames reaching outside the canvas are clipped to it")
    func clipped() throws {
        for path in ["gif/gif-test-suite/animated_transparent_loop_frames_out_of_bounds.gif", "gif/pillow/test_extents.gif"] {
            let data = try Corpus.data(path)
            let eager = try GIFCoder().decode(data, options: .init())
            let lazy = try #require(try AnimatedImage(data: data))
            #expect(lazy.info.frameCount == eager.frames.count)
            try lazy.forEachFrame { index, frame in
                #expect(frame.pixels.width == lazy.info.canvasSize.width && frame.pixels.height == lazy.info.canvasSize.height)
                #expect(frame == eager.frames[index], "\(path) frame \(index)")
            }
        }
    }

    @Test("Indexes outside the animation, empty and garbage data are errors, never crashes")
    func misuse() throws {
        let lazy = try #require(try AnimatedImage(data: Corpus.data("gif/pygif/animation.gif")))
        for index in [-1, lazy.info.frameCount, .max, .min] {
            #expect(throws: WebImageError.self) { try lazy.frame(at: index) }
        }
        #expect(throws: WebImageError.self) { try AnimatedImage(data: Data()) }
        #expect(throws: WebImageError.self) { try AnimatedImage(data: Data("GIF89a".utf8)) }
        #expect(throws: WebImageError.self) { try AnimatedImage(data: Data(repeating: 7, count: 100)) }
    }
}
