import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin
import WebImageCompat

/// `lazyAnimatedImage` through the real manager, downloader and caches, over a loopback
/// origin: the result holds the poster and an ``AnimatedImage`` whose frames equal the
/// eager decoder's; the memory cache charges the documented bound, not every frame; memory
/// and disk hits stay lazy; eager loads of the same URL stay eager; transformers run per
/// frame as frames are decoded.
@Suite("ImageManager: lazy animated images", .serialized, .timeLimit(.minutes(3)))
struct ImageManagerLazyAnimationTests {
    static let path = "gif/image-gif/gifplayer-muybridge.gif"

    /// The fixture with muybridge served as a GIF at `/muybridge.gif`.
    /// Runs `body` with a fixture serving the GIF, its URL and bytes; awaits the fixture's shutdown.
    private func withGIF(_ body: (ManagerFixture, URL, Data) async throws -> Void) async throws {
        try await ManagerFixture.with { fixture in
            let data = try Corpus.data(Self.path)
            fixture.origin.route("/muybridge.gif", TestOrigin.Response(body: Array(data), contentType: "image/gif"))
            try await body(fixture, fixture.origin.url("/muybridge.gif"), data)
        }
    }

    private static func eager(_ data: Data, options: ImageDecodeOptions = ImageDecodeOptions()) throws -> DecodedImage {
        try ManagerTestKit.coders.decode(data, options: options)
    }

    @Test("A lazy load gives the poster and frames equal to the eager decode's, in order and at random")
    func framesEqualEager() async throws {
        try await withGIF { fixture, url, data in
            let eager = try Self.eager(data)
            #expect(eager.frames.count == 380)

            let image = try await fixture.manager.loadImage(with: url, options: [.lazyAnimatedImage]).image
            let animation = try #require(image.animation)
            #expect(image.frames == [eager.frames[0]])
            #expect(image.isAnimated && image.frameCount == 380)
            #expect(image.width == eager.width && image.height == eager.height && image.loopCount == eager.loopCount)
            #expect(image.duration == eager.duration)
            #expect(animation.data == data)

            var seen = 0
            try animation.forEachFrame { index, frame in
                #expect(frame == eager.frames[index], "frame \(index)")
                seen += 1
            }
            #expect(seen == 380)
            let order = AnimatedCorpus.randomOrder(count: 380, limit: 40, seed: 14)
            for index in order + [379, 0] {
                #expect(try animation.frame(at: index) == eager.frames[index], "frame \(index) of \(order)")
            }
            // Nothing decoded stays with the animation beyond what its bound allows.
            #expect(animation.cost <= animation.cacheCost)
        }
    }

    @Test("The memory cache charges poster + data + the retained-bytes bound, far below every frame")
    func memoryCost() async throws {
        try await withGIF { fixture, url, data in
            let eager = try Self.eager(data)
            let image = try await fixture.manager.loadImage(with: url, options: [.lazyAnimatedImage]).image
            let animation = try #require(image.animation)

            let frameBytes = 472 * 298 * 4
            // The bound as documented: 2 idle decoders (a copy of the data and 2 canvases each)
            // and the pool's spares (2 by default) of one frame each.
            let bound = 2 * (data.count + 2 * frameBytes) + animation.pool.capacity * frameBytes
            #expect(animation.pool.capacity == 2)
            #expect(animation.retainedByteLimit == bound)
            #expect(image.cost == frameBytes + data.count + bound)
            #expect(fixture.cache.memoryCache.totalCost == image.cost)
            #expect(image.cost * 40 < eager.cost, "lazy \(image.cost) bytes vs eager \(eager.cost)")
        }
    }

    @Test("A second lazy load is a memory hit returning the same lazy image, through both APIs")
    func memoryHit() async throws {
        try await withGIF { fixture, url, _ in
            let first = try await fixture.manager.loadImage(with: url, options: [.lazyAnimatedImage])
            #expect(first.cacheType == .none)
            let second = try await fixture.manager.loadImage(with: url, options: [.lazyAnimatedImage])
            #expect(second.cacheType == .memory)
            #expect(second.image.animation === first.image.animation)
            #expect(second.cacheKey == fixture.manager.cacheKey(for: url, options: [.lazyAnimatedImage]))

            let results = await fixture.loadAll(url, options: [.lazyAnimatedImage])
            #expect(results.count == 1)
            #expect(results.first?.cacheType == .memory)
            #expect(results.first?.image?.animation === first.image.animation)
            #expect(fixture.origin.requestCount("/muybridge.gif") == 1)
        }
    }

    @Test("After memory is cleared, a lazy load decodes the disk's encoded data lazily")
    func diskHit() async throws {
        try await withGIF { fixture, url, data in
            _ = try await fixture.manager.loadImage(with: url, options: [.lazyAnimatedImage])
            await fixture.cache.flush()
            // The disk holds the original's bytes, and nothing under the lazy key.
            let lazyKey = try #require(fixture.manager.cacheKey(for: url, options: [.lazyAnimatedImage]))
            let stored = await withCheckedContinuation { continuation in
                fixture.cache.diskData(forKey: url.absoluteString) { continuation.resume(returning: $0) }
            }
            #expect(stored == data)
            #expect(await fixture.cache.containsImage(forKey: lazyKey, cacheType: .disk) == .none)

            await fixture.cache.clear(cacheType: .memory)
            let response = try await fixture.manager.loadImage(with: url, options: [.lazyAnimatedImage])
            #expect(response.cacheType == .disk)
            let animation = try #require(response.image.animation)
            let eager = try Self.eager(data)
            for index in [0, 1, 200, 379, 7] {
                #expect(try animation.frame(at: index) == eager.frames[index], "frame \(index)")
            }
            #expect(fixture.origin.requestCount("/muybridge.gif") == 1)
            // Kept in memory again, lazily.
            #expect(fixture.cache.imageFromMemory(forKey: lazyKey)?.animation === animation)
        }
    }

    @Test("Eager and lazy loads of one URL never get each other's image")
    func keptApart() async throws {
        try await withGIF { fixture, url, _ in
            let lazy = try await fixture.manager.loadImage(with: url, options: [.lazyAnimatedImage])
            await fixture.cache.flush()
            let eager = try await fixture.manager.loadImage(with: url)
            #expect(eager.cacheType == .disk)
            #expect(eager.image.animation == nil && eager.image.frames.count == 380)
            let again = try await fixture.manager.loadImage(with: url, options: [.lazyAnimatedImage])
            #expect(again.cacheType == .memory && again.image.animation === lazy.image.animation)
            let eagerAgain = try await fixture.manager.loadImage(with: url)
            // All 380 frames decoded are 214 MB: over a tenth of the default memory limit (Nuke's
            // entry rule), so the eager image is not kept in memory and comes from disk again —
            // never as the lazy entry that memory does hold.
            let entryLimit = Double(ImageCache.Config().maxMemoryCost) * 0.1
            #expect(eagerAgain.cacheType == (Double(eager.image.cost) > entryLimit ? .disk : .memory))
            #expect(eagerAgain.image.animation == nil && eagerAgain.image.frames.count == 380)
            #expect(fixture.origin.requestCount("/muybridge.gif") == 1)
        }
    }

    @Test("With transformAnimatedImage the transformer runs per frame, when each frame is decoded")
    func transformPerFrame() async throws {
        try await withGIF { fixture, url, data in
            let transformer = CountingTransformer(ImageFlippingTransformer(horizontal: true, vertical: false))
            var context = WebImageContext()
            context.imageTransformer = transformer
            let response = try await fixture.manager.loadImage(
                with: url, options: [.lazyAnimatedImage, .transformAnimatedImage], context: context)
            let animation = try #require(response.image.animation)
            // Only the poster was transformed so far.
            #expect(transformer.calls == 1)

            let eager = try #require(ImageTransform.apply(
                transformer.base, to: try Self.eager(data), transformAnimatedImage: true))
            #expect(response.image.frames == [eager.frames[0]])
            #expect(response.image.cost * 40 < eager.cost)
            for index in [3, 0, 379, 150] {
                #expect(try animation.frame(at: index) == eager.frames[index], "frame \(index)")
            }
            #expect(transformer.calls == 5)

            // The transformed result is its own memory entry; the disk keeps the original only.
            let key = try #require(fixture.manager.cacheKey(for: url, options: [.lazyAnimatedImage], context: context))
            #expect(key.contains(transformer.transformerKey) && key.contains(ImageManager.lazyAnimationKeySuffix))
            await fixture.cache.flush()
            #expect(await fixture.cache.containsImage(forKey: key, cacheType: .all) == .memory)

            // Without the option an animation is left untransformed, as for eager loads.
            await fixture.cache.clear(cacheType: .memory)
            let plain = try await fixture.manager.loadImage(with: url, options: [.lazyAnimatedImage], context: context)
            #expect(plain.cacheType == .disk)
            #expect(try plain.image.animation?.frame(at: 3) == Self.eager(data).frames[3])
            #expect(transformer.calls == 5)
        }
    }

    @Test("A lazy thumbnail decodes each frame at the thumbnail size, equal to the eager thumbnail's")
    func thumbnail() async throws {
        // A 10-frame 370×285 GIF: the eager thumbnail decode of all 380 frames of muybridge
        // takes half a minute in a debug build.
        try await ManagerFixture.with { fixture in
            let data = try Corpus.data("gif/sharp/animated-loop-3.gif")
            fixture.origin.route("/loop.gif", TestOrigin.Response(body: Array(data), contentType: "image/gif"))
            let url = fixture.origin.url("/loop.gif")
            let size = PixelSize(width: 100, height: 100)
            var context = WebImageContext()
            context.thumbnailPixelSize = size
            let response = try await fixture.manager.loadImage(with: url, options: [.lazyAnimatedImage], context: context)
            let animation = try #require(response.image.animation)
            let eager = try Self.eager(data, options: ImageDecodeOptions(thumbnailPixelSize: size))
            #expect(animation.info.frameSize == PixelSize(width: eager.width, height: eager.height))
            #expect(max(eager.width, eager.height) == 100)
            #expect(response.image.frames == [eager.frames[0]])
            for index in [9, 4, 0, 5] {
                #expect(try animation.frame(at: index) == eager.frames[index], "frame \(index)")
            }
        }
    }

    @Test("A still image loads as usual with the option")
    func stillImage() async throws {
        try await ManagerFixture.with { fixture in
            let png = ManagerTestKit.png()
            let url = fixture.serve("/still.png", png)
            let response = try await fixture.manager.loadImage(with: url, options: [.lazyAnimatedImage])
            #expect(response.image.animation == nil)
            #expect(response.image == (try ManagerTestKit.coders.decode(png, options: ImageDecodeOptions())))
            #expect(response.image.cost == 32 * 24 * 4)
        }
    }
}

/// A real transformer that counts how often it runs.
private final class CountingTransformer: ImageTransformer {
    let base: any ImageTransformer
    private let count = Mutex(0)

    init(_ base: any ImageTransformer) { self.base = base }

    var calls: Int { count.withLock { $0 } }
    var transformerKey: String { base.transformerKey }

    func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        count.withLock { $0 += 1 }
        return base.transform(image, forKey: key)
    }
}
