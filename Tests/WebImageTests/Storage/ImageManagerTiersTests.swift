import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// The manager's own cache, as `WebImage` alone builds it: the two tiers given to
/// `ImageManager(memoryCache:diskCache:)`, with no `ImageCache` (that is WebImageCompat's).
@Suite("ImageManager over a memory and a disk tier", .timeLimit(.minutes(1)))
struct ImageManagerTiersTests {
    private static func serve(_ origin: TestOrigin) -> (URL, Data) {
        let png = ManagerTestKit.png(width: 40, height: 30, seed: 7)
        for path in ["/t.png", "/m.png"] {
            origin.route(path) { _ in TestOrigin.Response(body: Array(png), contentType: "image/png") }
        }
        return (origin.url("/t.png"), png)
    }

    private static func files(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { !$0.hasPrefix(".") }
    }

    @Test("a download's image goes to the memory tier given and its bytes to the disk tier given; a new manager over the same disk reads them")
    func tiersHoldTheLoad() async throws {
        try await TestOrigin.with { origin in
            let (url, png) = Self.serve(origin)
            let directory = try TemporaryDirectory()
            try await ImageDownloader.withDownloader { downloader in
                let memory = MemoryCache<String, DecodedImage>(totalCostLimit: 64 << 20)
                let disk = DiskCache(directory: directory.url)
                let manager = ImageManager(memoryCache: memory, diskCache: disk, loader: downloader)
                let first = try await manager.loadImage(with: url, options: [.waitStoreCache])
                #expect(first.cacheType == .none)
                #expect(memory.value(forKey: url.absoluteString)?.width == 40)
                #expect(await disk.data(forKey: url.absoluteString) == png)

                let again = ImageManager(memoryCache: MemoryCache(), diskCache: DiskCache(directory: directory.url), loader: downloader)
                let second = try await again.loadImage(with: url)
                #expect(second.cacheType == .disk && second.image.height == 30)
                #expect(origin.requestCount("/t.png") == 1)
            }
        }
    }

    @Test("a nil tier is not used: no memory keeps nothing in memory, no disk writes no file")
    func nilTierIsUnused() async throws {
        try await TestOrigin.with { origin in
            let (url, _) = Self.serve(origin)
            let directory = try TemporaryDirectory()
            try await ImageDownloader.withDownloader { downloader in
                let diskOnly = ImageManager(memoryCache: nil, diskCache: DiskCache(directory: directory.url), loader: downloader)
                _ = try await diskOnly.loadImage(with: url, options: [.waitStoreCache])
                #expect(diskOnly.imageCache.imageFromMemory(forKey: url.absoluteString) == nil)
                #expect(try await diskOnly.loadImage(with: url).cacheType == .disk)
                #expect(Self.files(in: directory.url).count == 1)

                let unused = directory.url.appendingPathComponent("unused", isDirectory: true)
                let memory = MemoryCache<String, DecodedImage>()
                let memoryOnly = ImageManager(memoryCache: memory, diskCache: nil, loader: downloader)
                let other = origin.url("/m.png")
                _ = try await memoryOnly.loadImage(with: other, options: [.waitStoreCache])
                await memoryOnly.imageCache.flush()
                #expect(memory.value(forKey: other.absoluteString) != nil)
                #expect(await memoryOnly.imageCache.diskData(forKey: other.absoluteString) == nil)
                #expect(await memoryOnly.imageCache.containsImage(forKey: other.absoluteString, cacheType: .disk) == .none)
                #expect(!FileManager.default.fileExists(atPath: unused.path))
                #expect(try await memoryOnly.loadImage(with: other).cacheType == .memory)
            }
        }
    }

    @Test("removing and clearing through the manager's cache act on the tiers named: memory, disk, or both")
    func removeAndClearByTier() async throws {
        try await TestOrigin.with { origin in
            let (url, png) = Self.serve(origin)
            let other = origin.url("/m.png")
            let directory = try TemporaryDirectory()
            try await ImageDownloader.withDownloader { downloader in
                let memory = MemoryCache<String, DecodedImage>(totalCostLimit: 64 << 20)
                let disk = DiskCache(directory: directory.url)
                let manager = ImageManager(memoryCache: memory, diskCache: disk, loader: downloader)
                let cache = manager.imageCache
                let (key, otherKey) = (url.absoluteString, other.absoluteString)
                _ = try await manager.loadImage(with: url, options: [.waitStoreCache])
                _ = try await manager.loadImage(with: other, options: [.waitStoreCache])

                await cache.removeImage(forKey: key, cacheType: .memory)
                #expect(memory.value(forKey: key) == nil)
                #expect(await disk.data(forKey: key) == png, "the disk entry stays")
                await cache.removeImage(forKey: key, cacheType: .disk)
                #expect(await disk.containsData(forKey: key) == false)
                await cache.removeImage(forKey: otherKey, cacheType: .all)
                #expect(memory.value(forKey: otherKey) == nil)
                #expect(await disk.containsData(forKey: otherKey) == false)

                _ = try await manager.loadImage(with: url, options: [.waitStoreCache])
                await cache.clear(cacheType: .disk)
                #expect(await disk.totalCount() == 0)
                #expect(memory.value(forKey: key) != nil, "clearing the disk leaves memory")
                await cache.clear(cacheType: .memory)
                #expect(memory.count == 0)
                #expect(origin.requestCount("/t.png") == 2)
            }
        }
    }

    @Test("the default memory tier has the shared cache's limits: 15 % of the physical memory, at most 768 MiB, one image at most a tenth")
    func defaultMemoryLimits() {
        let memory = MemoryCache<String, DecodedImage>.withDefaultLimits()
        let expected = min(Double(ProcessInfo.processInfo.physicalMemory) * 0.15, Double(768 * 1024 * 1024))
        // The library divides by 100 before multiplying: a few bytes of rounding at most.
        #expect(abs(Double(memory.totalCostLimit) - expected) < 100)
        #expect(abs(Double(memory.entryCostLimit) - expected / 10) < 10)
        #expect(ImageManager.shared.imageCache.imageFromMemory(forKey: "never stored \(UUID())") == nil)
    }
}
