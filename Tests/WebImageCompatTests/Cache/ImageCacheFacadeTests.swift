import Foundation
import Testing
import WebImage
import WebImageCodecs
import WebImageCompat

/// `ImageCache` is WebImageCompat's façade over the manager's own two tiers: SDWebImage's
/// `SDImageCache.shared` is what `SDWebImageManager.sharedManager` uses, and so it is here.
@Suite("ImageCache, the façade", .timeLimit(.minutes(1)))
struct ImageCacheFacadeTests {
    @Test("ImageCache.shared is ImageManager.shared's cache: the same memory, the same directory, the default limits")
    func sharedIsTheManagersCache() {
        let key = "https://façade.example/\(UUID().uuidString).png"
        let image = DecodedImage(pixels: PixelBuffer(width: 3, height: 2), format: .png)
        ImageCache.shared.memoryCache.setValue(image, forKey: key, cost: image.cost)
        defer { ImageCache.shared.memoryCache.removeValue(forKey: key) }
        #expect(ImageManager.shared.imageCache.imageFromMemory(forKey: key)?.width == 3)
        ImageCache.shared.memoryCache.removeValue(forKey: key)
        #expect(ImageManager.shared.imageCache.imageFromMemory(forKey: key) == nil)

        #expect(ImageCache.shared.diskCache.directory.path == DiskCache.defaultDirectory(namespace: "default").standardizedFileURL.path)
        let config = ImageCache.Config()
        #expect(ImageCache.shared.memoryCache.totalCostLimit == config.maxMemoryCost)
        #expect(ImageCache.shared.memoryCache.entryCostLimit == Int(Double(config.maxMemoryCost) * config.maxMemoryEntryFraction))
    }

    @Test("a cache's settings choose its tiers: with shouldUseDisk off nothing reaches the disk, with shouldCacheImagesInMemory off nothing stays in memory")
    func settingsChooseTheTiers() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-facade-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = DecodedImage(pixels: PixelBuffer(width: 4, height: 4), format: .png)
        let data = Data([0x89, 0x50, 0x4E, 0x47])

        var noDisk = ImageCache.Config()
        noDisk.shouldUseDisk = false
        let memoryOnly = ImageCache(namespace: "m", directory: directory, config: noDisk)
        try await memoryOnly.store(image, data: data, forKey: "k")
        await memoryOnly.flush()
        #expect(memoryOnly.imageFromMemory(forKey: "k") != nil)
        #expect(await memoryOnly.diskData(forKey: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: memoryOnly.diskCache.directory.path))

        var noMemory = ImageCache.Config()
        noMemory.shouldCacheImagesInMemory = false
        let diskOnly = ImageCache(namespace: "d", directory: directory, config: noMemory)
        try await diskOnly.store(image, data: data, forKey: "k")
        #expect(diskOnly.imageFromMemory(forKey: "k") == nil)
        #expect(diskOnly.memoryCache.totalCost == 0)
        #expect(await diskOnly.diskData(forKey: "k") == data)
    }

    @Test("imageFromDisk decodes the disk data and keeps the image in memory; clearDisk empties the disk and leaves memory")
    func diskConveniences() async throws {
        try await CompatFixture.with { f in
            let png = CompatFixture.png()
            try await f.cache.store(nil, data: png, forKey: "k", cacheType: .disk)
            #expect(f.cache.imageFromMemory(forKey: "k") == nil)
            let image = try #require(await f.cache.imageFromDisk(forKey: "k"))
            let direct = try ImageCodersManager.shared.decode(png, options: .init())
            #expect(image.width == direct.width && image.height == direct.height)
            #expect(image.frames.first?.pixels == direct.frames.first?.pixels)
            #expect(f.cache.imageFromMemory(forKey: "k") != nil, "a disk hit is kept in memory")
            #expect(await f.cache.imageFromDisk(forKey: "absent") == nil)

            await f.cache.clearDisk()
            #expect(await f.cache.diskImageData(forKey: "k") == nil)
            #expect(await f.cache.totalDiskCount() == 0)
            #expect(f.cache.imageFromMemory(forKey: "k") != nil, "memory is left alone")
        }
    }

    @Test("preferredEncodingFormat: JPEG for an opaque still, PNG when any pixel is not opaque, an animation's own GIF, WebP or APNG, GIF for any other animation")
    func preferredEncodingFormat() throws {
        let opaque = PixelBuffer(width: 2, height: 2, bytes: Array(repeating: 255, count: 16))
        let clear = PixelBuffer(width: 2, height: 2, bytes: [255, 255, 255, 255, 255, 255, 255, 254] + Array(repeating: 255, count: 8))
        let (o, c) = (try #require(opaque), try #require(clear))
        #expect(ImageCache.preferredEncodingFormat(for: DecodedImage(pixels: o, format: .png)) == .jpeg)
        #expect(ImageCache.preferredEncodingFormat(for: DecodedImage(pixels: c, format: .jpeg)) == .png)
        for (format, expected) in [(ImageFormat.gif, ImageFormat.gif), (.webp, .webp), (.apng, .apng), (.avif, .gif), (.png, .gif)] {
            let animation = try #require(DecodedImage(frames: [ImageFrame(pixels: o, duration: 0.1), ImageFrame(pixels: c, duration: 0.1)], format: format))
            #expect(ImageCache.preferredEncodingFormat(for: animation) == expected, "\(format)")
        }
    }
}
