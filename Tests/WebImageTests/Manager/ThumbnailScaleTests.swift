import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// The scale of a thumbnail of an `@2x` URL. SDWebImage takes the scale from the URL's own
/// key (`SDImageScaleFactorForKey` of the cache key before any thumbnail suffix), in the
/// loader and in the cache alike; the thumbnail key ("a@2x-Thumbnail(…).png") no longer has
/// the `@2x.` marker, so reading it from that key gave 1 when downloaded and 2 when made
/// from the cached original.
@Suite("A thumbnail of an @2x URL has scale 2, downloaded or made from the cached original", .timeLimit(.minutes(1)))
struct ThumbnailScaleTests {
    @Test("downloaded, then made from the original's cached data, then from memory: scale 2 each time")
    func scaleFromTheOriginalKey() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/icons/a@2x.png", ManagerTestKit.png(width: 64, height: 48))
            let context = WebImageContext.with { $0.thumbnailPixelSize = PixelSize(width: 16, height: 12) }

            let downloaded = try await f.manager.loadImage(with: url, options: [.waitStoreCache], context: context)
            #expect(downloaded.cacheType == .none)
            #expect(downloaded.image.scale == 2)
            #expect(downloaded.image.width == 16)

            f.cache.clearMemory()
            let derived = try await f.manager.loadImage(with: url, context: context)
            #expect(derived.cacheType == .disk)
            #expect(derived.image.scale == 2)
            #expect(f.origin.requestCount("/icons/a@2x.png") == 1)

            let remembered = try await f.manager.loadImage(with: url, context: context)
            #expect(remembered.cacheType == .memory && remembered.image.scale == 2)
        }
    }

    @Test("a plain thumbnail keeps scale 1")
    func plainURL() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/icons/b.png", ManagerTestKit.png(width: 64, height: 48))
            let context = WebImageContext.with { $0.thumbnailPixelSize = PixelSize(width: 16, height: 12) }
            let downloaded = try await f.manager.loadImage(with: url, context: context)
            #expect(downloaded.image.scale == 1)
        }
    }
}
