import Foundation
import Testing
@testable import WebImageCodecs

/// ``AnimatedImage/encoded(as:options:)`` writes what encoding the whole decoded image
/// writes, byte for byte, while decoding one frame at a time.
@Suite("AnimatedImage: encoding frame by frame", .timeLimit(.minutes(2)))
struct AnimatedImageEncodeTests {
    static let files = ["gif/sharp/animated-loop-3.gif", "png/wuffs/muybridge.apng", "webp/image-rs/anim.webp",
                        "webp/sharp/animated-loop-3.webp"]

    @Test("GIF and WebP output equals the eager encoders' output for the whole image", arguments: files)
    func equalsEager(_ path: String) throws {
        let data = try Corpus.data(path)
        let eager = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
        let lazy = try #require(try AnimatedImage(data: data))
        #expect(try lazy.encoded(as: .gif) == GIFCoder().encode(eager, as: .gif, options: ImageEncodeOptions()))
        let webp = try lazy.encoded(as: .webp, options: ImageEncodeOptions(lossless: true))
        #expect(webp == (try WebPCoder().encode(eager, as: .webp, options: ImageEncodeOptions(lossless: true))))

        // libwebp may merge equal frames, never the timing or the loop count.
        let back = try WebPCoder().decode(webp, options: ImageDecodeOptions())
        #expect(abs(back.duration - eager.duration) < 0.001)
        #expect(back.loopCount == eager.loopCount)
        #expect(back.pixels == eager.pixels)
    }

    @Test("The coders encode a lazy image's every frame, not only the poster it holds", arguments: files)
    func codersEncodeLazyImages(_ path: String) throws {
        let data = try Corpus.data(path)
        let eager = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
        let lazy = try DecodedImage(animation: #require(try AnimatedImage(data: data)))
        #expect(lazy.frames.count == 1)
        #expect(try ImageCodersManager.shared.encode(lazy, as: .gif, options: ImageEncodeOptions())
            == GIFCoder().encode(eager, as: .gif, options: ImageEncodeOptions()))
        let webp = try ImageCodersManager.shared.encode(lazy, as: .webp, options: ImageEncodeOptions(lossless: true))
        #expect(try WebPCoder().decode(webp, options: ImageDecodeOptions()).frames.count > 1)
    }

    @Test("A transformed animation encodes its transformed frames")
    func transformed() throws {
        let data = try Corpus.data("gif/sharp/animated-loop-3.gif")
        let eager = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
        let flip: AnimatedImage.FrameTransform = { frame, _ in
            ImageFrame(pixels: frame.pixels.oriented(.upMirrored), duration: frame.duration)
        }
        let lazy = try #require(try AnimatedImage(data: data)).transformed(key: "flip", flip)
        let flipped = try #require(eager.withFrames(eager.frames.enumerated().compactMap { flip($1, $0) }))
        #expect(try lazy.encoded(as: .gif) == GIFCoder().encode(flipped, as: .gif, options: ImageEncodeOptions()))
    }

    @Test("firstFrameOnly writes a still image; other formats are refused")
    func firstFrameAndFormats() throws {
        let lazy = try #require(try AnimatedImage(data: Corpus.data("webp/image-rs/anim.webp")))
        let poster = try lazy.frame(at: 0)
        for format in [ImageFormat.gif, .webp] {
            let still = try lazy.encoded(as: format, options: ImageEncodeOptions(lossless: true, firstFrameOnly: true))
            let decoded = try ImageCodersManager.shared.decode(still, options: ImageDecodeOptions())
            #expect(decoded.frames.count == 1, "\(format)")
            if format == .webp { #expect(decoded.pixels == poster.pixels) }
        }
        #expect(throws: WebImageError.self) { try lazy.encoded(as: .png) }
        do {
            _ = try lazy.encoded(as: .jpeg)
            Issue.record("JPEG output should be refused")
        } catch {
            #expect(error.code == .unsupportedFormat)
        }
    }
}
