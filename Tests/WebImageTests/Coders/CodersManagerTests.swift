import Foundation
import Testing
@testable import WebImageCodecs

/// `ImageCodersManager`'s SDWebImage spellings (`addCoder`, `removeCoder`), the decode-only
/// coders' `encode`, and an animation's poster.
@Suite("Coders: the manager's list, decode-only coders, posters", .timeLimit(.minutes(1)))
struct CodersManagerTests {
    /// A 2×1 PNG: an opaque red pixel, then an opaque blue one.
    static let png = PNGSynth.png(width: 2, height: 1, depth: 8, colorType: 6, samples: [255, 0, 0, 255, 0, 0, 255, 255])

    @Test("addCoder asks the new coder first; removeCoder takes out every coder of that type")
    func addAndRemove() throws {
        let manager = ImageCodersManager(coders: [PNGCoder()])
        manager.addCoder(JPEGCoder())
        #expect(manager.coders.count == 2)
        #expect(manager.coders.last is JPEGCoder, "the last added is asked first")
        // The JPEG coder declines a PNG, so the PNG coder behind it decodes it.
        let image = try manager.decode(Self.png, options: .init())
        #expect(image.width == 2 && image.frames.first?.pixels[1, 0] == RGBA(r: 0, g: 0, b: 255))

        manager.addCoder(JPEGCoder())
        manager.removeCoder(JPEGCoder())
        #expect(manager.coders.count == 1 && manager.coders.first is PNGCoder, "both JPEG coders went")
        manager.removeCoder(PNGCoder())
        #expect(manager.coders.isEmpty)
        #expect(throws: WebImageError.self) { try manager.decode(Self.png, options: .init()) }
    }

    @Test("HEIF and JPEG XL are decoded only: canEncode is false and encode throws unsupportedFormat")
    func decodeOnlyCoders() throws {
        let image = try ImageCodersManager.shared.decode(Self.png, options: .init())
        let coders: [any ImageCoder] = [HEIFCoder(), JXLCoder()]
        for coder in coders {
            for format in [ImageFormat.heic, .jxl, .png] {
                #expect(!coder.canEncode(to: format))
                #expect { try coder.encode(image, as: format, options: .init()) } throws: { error in
                    (error as? WebImageError)?.code == .unsupportedFormat
                }
            }
        }
    }

    @Test("an animation's poster is its first frame, as a still image of the file's format")
    func posterImage() throws {
        let data = try Corpus.data("gif/wuffs/animated-red-blue.gif")
        let animation = try #require(try AnimatedImage(data: data))
        let eager = try ImageCodersManager.shared.decode(data, options: .init())
        #expect(eager.frames.count > 1)
        let poster = try animation.posterImage()
        #expect(!poster.isAnimated && poster.format == .gif)
        #expect(poster.width == eager.width && poster.height == eager.height)
        #expect(poster.frames.first?.pixels == eager.frames.first?.pixels)
        #expect(poster.frames.first?.pixels != eager.frames.last?.pixels, "not any frame: the first")
        // An animation is equal and hashes as itself alone: another over the same bytes is another.
        let again = try #require(try AnimatedImage(data: data))
        #expect(Set([animation, animation, again]).count == 2)
    }
}
