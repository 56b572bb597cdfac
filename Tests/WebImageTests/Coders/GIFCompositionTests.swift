import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// Composition, timing and options, checked on corpus files whose structure is known
/// (frame rectangles, disposal and transparency read from their descriptors).
@Suite("GIF composition", .timeLimit(.minutes(1)))
struct GIFCompositionTests {
    func decode(_ path: String, _ options: ImageDecodeOptions = ImageDecodeOptions()) throws -> DecodedImage {
        try GIFCoder().decode(try Corpus.data(path), options: options)
    }

    static let clear = RGBA(r: 0, g: 0, b: 0, a: 0)

    @Test("Restore to background clears the frame's area to transparent")
    func disposeBackground() throws {
        // Four 1x1 frames at (0,0), (1,0), (1,1), (0,1) on a 2x2 canvas, each disposed to background.
        let image = try decode("gif/pygif/dispose-restore-background.gif")
        let spots = [(0, 0), (1, 0), (1, 1), (0, 1)]
        for (frame, spot) in zip(image.frames, spots) {
            for y in 0..<2 {
                for x in 0..<2 {
                    let alpha = frame.pixels[x, y]?.a
                    #expect(alpha == ((x, y) == spot ? 255 : 0), "(\(x),\(y))")
                }
            }
        }
    }

    @Test("Keep / none leave earlier frames in place; only the new frame's area changes")
    func disposeKeep() throws {
        for path in ["gif/pygif/dispose-keep.gif", "gif/pygif/dispose-none.gif"] {
            let image = try decode(path)
            let changed = [(1, 0), (1, 1), (0, 1)]
            for (i, spot) in changed.enumerated() {
                let before = image.frames[i].pixels, after = image.frames[i + 1].pixels
                #expect(!after.hasAlpha)
                for y in 0..<2 {
                    for x in 0..<2 where (x, y) != spot {
                        #expect(before[x, y] == after[x, y], "\(path) frame \(i + 1) (\(x),\(y))")
                    }
                }
            }
        }
    }

    @Test("Restore to previous brings back the canvas from before the frame")
    func disposePrevious() throws {
        // Frame 1: circle in (10,10) 30x30, disposed to previous; frame 2 draws a circle
        // around (50,50) that does not reach (25,25), the centre of frame 1's circle.
        let previous = try decode("gif/gif-test-suite/animated_transparent_frame_restoreprev_loop.gif")
        let salmon = RGBA(r: 0xFF, g: 0xA0, b: 0x7A)
        #expect(previous.frames[1].pixels[25, 25] == salmon)
        #expect(previous.frames[2].pixels[25, 25] == previous.frames[0].pixels[25, 25])
        // The same frames left in place keep the circle.
        let kept = try decode("gif/gif-test-suite/animated_transparent_frame_norestore_loop.gif")
        #expect(kept.frames[2].pixels[25, 25] == salmon)
        // Disposed to background: (15,25) lies in frame 1's circle and outside frame 2's area.
        let background = try decode("gif/gif-test-suite/animated_transparent_frame_restorebackground_loop.gif")
        #expect(background.frames[1].pixels[15, 25] == salmon)
        #expect(background.frames[2].pixels[15, 25] == Self.clear)
    }

    @Test("Transparent index shows through; background disposal of a full frame clears it")
    func transparentDispose() throws {
        // 3x1: frame 0 indices (2,1,2) with 2 transparent; frame 1 full and disposed to
        // background; frame 2 only redraws the middle pixel.
        let image = try decode("gif/pillow/transparent_dispose.gif")
        let blue = RGBA(r: 0, g: 0, b: 255), green = RGBA(r: 0, g: 255, b: 24)
        #expect(image.frames.map { [$0.pixels[0, 0], $0.pixels[1, 0], $0.pixels[2, 0]] } == [
            [Self.clear, blue, Self.clear],
            [green, blue, green],
            [Self.clear, blue, Self.clear],
        ])
    }

    @Test("The graphic control's transparency flag decides, not the index alone")
    func transparencyFlag() throws {
        // Same pixels; index 2 (red) is transparent only when the flag is set.
        let on = try decode("gif/pygif/transparent.gif").pixels
        let off = try decode("gif/pygif/disabled-transparent.gif").pixels
        #expect(on[0, 0] == Self.clear)
        #expect(off[0, 0] == RGBA(r: 255, g: 0, b: 0))
        #expect(!off.hasAlpha)
        for (x, y) in [(1, 0), (0, 1), (1, 1)] { #expect(on[x, y] == off[x, y]) }
    }

    @Test("Delays: centiseconds, with 0 and 1 becoming 0.1 s")
    func delays() throws {
        #expect(try decode("gif/pygif/animation-speed.gif").frames.map(\.duration) == [0.25, 0.5, 1, 2])
        #expect(try decode("gif/pygif/animation-zero-delays.gif").frames.map(\.duration) == [0.1, 0.1, 0.1, 0.1])
        #expect(try decode("gif/pygif/animation-no-delays.gif").frames.map(\.duration) == [0.1, 0.1, 0.1, 0.1])
        #expect(try decode("gif/pygif/transparent.gif").frames.map(\.duration) == [0])
    }

    @Test("Loop count from NETSCAPE2.0; play once without it")
    func loopCounts() throws {
        #expect(try decode("gif/pygif/loop-infinite.gif").loopCount == 0)
        #expect(try decode("gif/pygif/loop-once.gif").loopCount == 1)
        #expect(try decode("gif/pygif/loop-max.gif").loopCount == 65535)
        #expect(try decode("gif/image-gif/moon_impact.gif").loopCount == 10)
        #expect(try decode("gif/gif-test-suite/animated_noloop.gif").loopCount == 1)
        #expect(try decode("gif/sdwebimage/TestLoopCount.gif").loopCount == 1)
        // Two loop blocks: the first one counts.
        #expect(try decode("gif/pillow/duplicate_number_of_loops.gif").loopCount == 2)
    }

    @Test("Interlaced and progressive storage of the same picture decode alike")
    func interlace() throws {
        let regular = try decode("gif/wuffs/hippopotamus.regular.gif").pixels
        let interlaced = try decode("gif/wuffs/hippopotamus.interlaced.gif").pixels
        #expect(regular == interlaced)
        let loop = try decode("gif/gif-test-suite/animated_loop.gif")
        let loopInterlaced = try decode("gif/gif-test-suite/animated_loop_interlaced.gif")
        #expect(loop.frames.map(\.pixels) == loopInterlaced.frames.map(\.pixels))
    }

    @Test("firstFrameOnly stops after the first frame")
    func firstFrameOnly() throws {
        let all = try decode("gif/wuffs/muybridge.gif")
        let first = try decode("gif/wuffs/muybridge.gif", ImageDecodeOptions(firstFrameOnly: true))
        #expect(first.frames.count == 1)
        #expect(first.pixels == all.pixels)
    }

    @Test("Thumbnails scale every frame to the target size")
    func thumbnail() throws {
        let image = try decode("gif/sharp/animated-loop-3.gif", ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100)))
        #expect(image.width == 100 && image.height == 77)
        #expect(image.frames.count == 10)
        #expect(image.frames.allSatisfy { $0.pixels.width == 100 && $0.pixels.height == 77 })
    }

    @Test("Frames outside the canvas are clipped, the canvas keeps its size")
    func clipping() throws {
        let image = try decode("gif/gif-test-suite/animated_transparent_loop_frames_out_of_bounds.gif")
        #expect(image.width == 100 && image.height == 100)
        #expect(image.frames.count == 4)
    }

    @Test("A truncated file keeps the frames completed before the cut")
    func truncatedKeepsCompleteFrames() throws {
        let data = try Corpus.data("gif/wuffs/muybridge.gif")
        let full = try GIFCoder().decode(data, options: ImageDecodeOptions())
        let cut = try GIFCoder().decode(data.prefix(data.count / 2), options: ImageDecodeOptions())
        #expect(cut.frames.count > 1 && cut.frames.count < full.frames.count)
        #expect(cut.frames.map(\.pixels) == Array(full.frames.prefix(cut.frames.count)).map(\.pixels))
        let header = data.prefix(40)
        let error = #expect(throws: WebImageError.self) { try GIFCoder().decode(header, options: ImageDecodeOptions()) }
        #expect(error?.code == .badImageData)
    }
}
