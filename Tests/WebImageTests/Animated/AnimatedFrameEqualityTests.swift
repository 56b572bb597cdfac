import Foundation
import Testing
@testable import WebImageCodecs

/// Every frame an ``AnimatedImage`` produces lazily equals the eager decoder's, for every
/// animated GIF, APNG and WebP of the corpus: in order, in a random order, and as thumbnails.
@Suite("Animated frames: lazy equals eager", .timeLimit(.minutes(2)))
struct AnimatedFrameEqualityTests {
    @Test("The corpus has the animated files this suite relies on")
    func corpus() {
        #expect(AnimatedCorpus.entries.count >= 60)
        #expect(Set(AnimatedCorpus.entries.map(\.format)) == AnimatedCorpus.formats)
    }

    @Test("Structure from the file alone; every frame in order, then in a random order", arguments: AnimatedCorpus.entries)
    func everyFrame(_ entry: Corpus.Entry) throws {
        let data = try entry.data()
        let eager = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
        let lazy = try #require(try AnimatedImage(data: data), "\(entry)")

        // Given only the structure (no pixel decoded yet)
        #expect(lazy.info.frameCount == eager.frames.count)
        #expect(lazy.info.loopCount == eager.loopCount)
        #expect(lazy.info.durations == eager.frames.map(\.duration))
        #expect(lazy.info.frameSize == PixelSize(width: eager.width, height: eager.height))
        #expect(lazy.info.format == eager.format)
        // apng-skip-idat.png counts its default image, which is not a frame of the animation.
        if let frames = entry.frames, entry.expect == "ok", !entry.path.hasSuffix("skip-idat.png") {
            #expect(lazy.info.frameCount == frames)
        }

        // When frames are decoded in order, buffers recycled
        var seen = 0
        try lazy.forEachFrame { index, frame in
            #expect(frame == eager.frames[index], "frame \(index)")
            seen += 1
        }
        #expect(seen == eager.frames.count)

        // When they are asked for in a random order (a subset for long animations), then
        // backwards from the end and the first again
        let fresh = try #require(try AnimatedImage(data: data))
        let limit = eager.frames.count > 60 ? 10 : eager.frames.count
        let order = AnimatedCorpus.randomOrder(count: eager.frames.count, limit: limit, seed: UInt64(entry.bytes))
        for index in order + [eager.frames.count - 1, 0] {
            #expect(try fresh.frame(at: index) == eager.frames[index], "frame \(index) of order \(order)")
        }
    }

    @Test("Thumbnails decode every frame at the target size, as the eager decoders do")
    func thumbnails() throws {
        let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))
        for path in ["gif/image-gif/moon_impact.gif", "gif/sharp/animated-loop-3.gif", "png/wuffs/animated-red-blue.apng",
                     "png/sdwebimage/TestImageLarge.png", "webp/sharp/animated-loop-3.webp", "webp/image-rs/anim.webp"] {
            let data = try Corpus.data(path)
            let eager = try ImageCodersManager.shared.decode(data, options: options)
            let lazy = try #require(try AnimatedImage(data: data, options: options))
            #expect(lazy.info.frameSize == PixelSize(width: eager.width, height: eager.height), "\(path)")
            #expect(max(lazy.info.frameSize.width, lazy.info.frameSize.height) <= 64, "\(path)")
            for index in [eager.frames.count - 1, 0, 1] {
                #expect(try lazy.frame(at: index) == eager.frames[index], "\(path) frame \(index)")
            }
        }
    }

    @Test("Colour-tagged APNGs (gAMA, iCCP) are converted to sRGB frame by frame, lazily as eagerly")
    func colourManagedAPNG() throws {
        let plain = try ImageCodersManager.shared.decode(Corpus.data("png/wuffs/animated-red-blue.apng"), options: ImageDecodeOptions())
        for path in ["png/wuffs-derived/animated-red-blue.gamma1dot0.apng", "png/wuffs-derived/animated-red-blue.dcip3d65.apng"] {
            let data = try Corpus.data(path)
            let eager = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
            // The tag changes the pixels, so equal frames below mean equal conversions.
            #expect(eager.frames.map(\.pixels) != plain.frames.map(\.pixels), "\(path)")
            let lazy = try #require(try AnimatedImage(data: data), "\(path)")
            for index in [0, 3, 1, 2, 0] {
                #expect(try lazy.frame(at: index) == eager.frames[index], "\(path) frame \(index)")
            }
            // Keeping the stored samples leaves them as the untagged file's.
            let stored = ImageDecodeOptions(colorManagement: .keepStoredSamples)
            #expect(try AnimatedImage(data: data, options: stored)?.frame(at: 1).pixels == plain.frames[1].pixels, "\(path)")
        }
    }

    @Test("A still image is not an animation")
    func stills() throws {
        for path in ["gif/pygif/depth8.gif", "png/wuffs/muybridge.apng".replacingOccurrences(of: "muybridge.apng", with: "muybridge.apng")] where path.hasSuffix(".gif") {
            #expect(try AnimatedImage(data: Corpus.data(path)) == nil)
        }
        #expect(try AnimatedImage(data: Corpus.data("webp/image-rs/lossy_alpha.webp")) == nil)
    }
}
