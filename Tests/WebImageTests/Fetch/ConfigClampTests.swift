import Foundation
import Testing
@testable import WebImage
@testable import WebImageCompat
@testable import WebImageCodecs
import WebImageTestOrigin

/// Out-of-range configuration is clamped where it is set, so nothing downstream (seconds
/// to nanoseconds, `Duration`, integer quality) can trap.
@Suite("Configuration values are clamped into range", .timeLimit(.minutes(1)))
struct ConfigClampTests {
    static let hostile: [Double] = [.infinity, -.infinity, .nan, 1e12, 1e300, -1e300, 0, -0.0, -1, .leastNonzeroMagnitude]

    @Test("DownloaderConfig.downloadTimeout: 0.001…86400 s; NaN, zero and negative give 15")
    func downloadTimeout() {
        var config = DownloaderConfig()
        let expected: [Double] = [86_400, 15, 15, 86_400, 86_400, 15, 15, 15, 15, 0.001]
        for (value, clamped) in zip(Self.hostile, expected) {
            config.downloadTimeout = value
            #expect(config.downloadTimeout == clamped, "\(value)")
            #expect(DownloaderConfig.timeoutRange.contains(config.downloadTimeout))
        }
        config.downloadTimeout = 2.5
        #expect(config.downloadTimeout == 2.5)
    }

    @Test("DownloadClients.nanoseconds never traps: huge and infinite give one day, NaN and negative 15 s")
    func timeoutConversion() {
        #expect(DownloadClients.nanoseconds(.infinity) == 86_400_000_000_000)
        #expect(DownloadClients.nanoseconds(1e300) == 86_400_000_000_000)
        #expect(DownloadClients.nanoseconds(.nan) == 15_000_000_000)
        #expect(DownloadClients.nanoseconds(-.infinity) == 15_000_000_000)
        #expect(DownloadClients.nanoseconds(-1) == 15_000_000_000)
        #expect(DownloadClients.nanoseconds(0.5) == 500_000_000)
        #expect(DownloadClients.nanoseconds(1e-12) == 1_000_000)
    }

    @Test("DownloaderConfig counts, limits and the progress interval")
    func downloaderLimits() {
        var config = DownloaderConfig()
        for (value, clamped) in [(0, 1), (-5, 1), (Int.min, 1), (1025, 1024), (Int.max, 1024), (8, 8)] {
            config.maxConcurrentDownloads = value
            #expect(config.maxConcurrentDownloads == clamped, "\(value)")
        }
        for (value, clamped) in [(-1, 0), (Int.min, 0), (101, 100), (Int.max, 100), (3, 3)] {
            config.maxRedirects = value
            #expect(config.maxRedirects == clamped, "\(value)")
        }
        config.maxResponseBytes = -1
        #expect(config.maxResponseBytes == 0)
        config.maxResponseBytes = .max
        #expect(config.maxResponseBytes == .max)
        for (value, clamped) in [(Double.nan, 0.1), (.infinity, 86_400), (1e300, 86_400), (-1, 0), (-.infinity, 0), (0.5, 0.5)] {
            config.minimumProgressInterval = value
            #expect(config.minimumProgressInterval == clamped, "\(value)")
        }
    }

    @Test("a downloader with timeout .infinity, progress interval .infinity and 10⁹ slots still loads from loopback")
    func infiniteTimeoutStillLoads() async throws {
        let config = LoaderTestKit.config { config in
            config.downloadTimeout = .infinity
            config.minimumProgressInterval = .infinity
            config.maxConcurrentDownloads = 1_000_000_000
        }
        #expect(config.downloadTimeout == 86_400 && config.maxConcurrentDownloads == 1024)
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage()
            origin.route("/inf.raw", .init(body: bytes, delivery: .chunked(pieces: 4, pause: .milliseconds(5))))
            let response = try await downloader.loadImage(with: origin.url("/inf.raw"))
            #expect(response.image?.pixels == pixels)
        }
        let nan = LoaderTestKit.config { $0.downloadTimeout = .nan; $0.minimumProgressInterval = .nan }
        try await LoaderTestKit.withOrigin(nan) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            origin.route("/nan.raw", .init(body: bytes))
            let response = try await downloader.loadImage(with: origin.url("/nan.raw"))
            #expect(response.image != nil)
        }
    }

    @Test("DiskCache.Config and ImageCache.Config: maxDiskAge NaN → one week, ±inf and negative → -1 (never)")
    func diskAge() {
        let week: Double = 7 * 86_400
        let expected: [Double] = [-1, -1, week, -1, -1, -1, 0, 0, -1, .leastNonzeroMagnitude]
        var image = ImageCache.Config()
        var disk = DiskCache.Config()
        for (value, clamped) in zip(Self.hostile, expected) {
            #expect(DiskCache.Config(maxDiskAge: value).maxDiskAge == clamped, "\(value)")
            disk.maxDiskAge = value
            image.maxDiskAge = value
            #expect(disk.maxDiskAge == clamped, "\(value)")
            #expect(image.maxDiskAge == clamped, "\(value)")
            #expect(image.diskConfig.maxDiskAge == clamped, "\(value)")
        }
        disk.maxDiskAge = 3600
        #expect(disk.maxDiskAge == 3600)
        #expect(DiskCache.Config.clampedAge(DiskCache.Config.maxExpiringAge) == DiskCache.Config.maxExpiringAge)
    }

    @Test("cache sizes and counts: negative becomes 0 (no limit)")
    func cacheSizes() {
        var image = ImageCache.Config()
        image.maxMemoryCost = -1
        image.maxMemoryCount = .min
        image.maxDiskSize = -10
        #expect(image.maxMemoryCost == 0 && image.maxMemoryCount == 0 && image.maxDiskSize == 0)
        #expect(image.diskConfig.maxDiskSize == 0)
        var disk = DiskCache.Config(maxDiskSize: .min)
        #expect(disk.maxDiskSize == 0)
        disk.maxDiskSize = -1
        #expect(disk.maxDiskSize == 0)
        disk.maxDiskSize = .max
        #expect(disk.maxDiskSize == .max)
        let memory = MemoryCache<String, Int>(totalCostLimit: -1, countLimit: .min)
        #expect(memory.totalCostLimit == 0 && memory.countLimit == 0)
        memory.totalCostLimit = .min
        #expect(memory.totalCostLimit == 0)
    }

    @Test("a disk cache opened with NaN and infinite limits trims without trapping")
    func diskCacheWithHostileLimits() async throws {
        let directory = try TemporaryDirectory()
        for age in [Double.nan, .infinity, -.infinity] {
            let cache = DiskCache(directory: directory.url, config: .init(maxDiskAge: age, maxDiskSize: .min))
            try await cache.store(Data("x".utf8), forKey: "k")
            await cache.removeExpiredData()
            #expect(await cache.containsData(forKey: "k"), "\(age)")
        }
    }

    @Test("ImageDecodeOptions: thumbnail sides, limits and scale")
    func decodeOptions() {
        #expect(ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 0, height: 5)).thumbnailPixelSize == nil)
        #expect(ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 5, height: -1)).thumbnailPixelSize == nil)
        #expect(ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: .max, height: 70_000)).thumbnailPixelSize
                == PixelSize(width: 65_535, height: 65_535))
        var options = ImageDecodeOptions()
        options.thumbnailPixelSize = PixelSize(width: 100_000, height: 300)
        #expect(options.thumbnailPixelSize == PixelSize(width: 65_535, height: 300))
        options.thumbnailPixelSize = PixelSize(width: .min, height: 300)
        #expect(options.thumbnailPixelSize == nil)
        options.scaleDownLimitBytes = 0
        #expect(options.scaleDownLimitBytes == nil)
        options.scaleDownLimitBytes = -1
        #expect(options.scaleDownLimitBytes == nil)
        #expect(ImageDecodeOptions(scaleDownLimitBytes: .min).scaleDownLimitBytes == nil)
        options.maxPixelCount = 0
        #expect(options.maxPixelCount == 1)
        #expect(ImageDecodeOptions(maxPixelCount: .min).maxPixelCount == 1)
        for bad in [Double.nan, .infinity, -.infinity, 0, -2] {
            options.scale = bad
            #expect(options.scale == 1, "\(bad)")
            #expect(ImageDecodeOptions(scale: bad).scale == 1, "\(bad)")
        }
        options.scale = 2
        #expect(options.scale == 2)
    }

    @Test("ImageDecodeOptions.targetSize never traps, even for sides near Int.max")
    func targetSizeExtremes() {
        let huge = PixelSize(width: .max, height: .max)
        let thumb = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 65_535, height: 65_535))
        #expect(thumb.targetSize(for: huge) == PixelSize(width: 65_535, height: 65_535))
        let limited = ImageDecodeOptions(scaleDownLimitBytes: 1)
        #expect(limited.targetSize(for: huge) == PixelSize(width: 1, height: 1))
        let wide = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 10, height: 10), scaleDownLimitBytes: .max)
        #expect(wide.targetSize(for: PixelSize(width: .max, height: 1)) == PixelSize(width: 10, height: 1))
        let stretch = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 10, height: 10), preserveAspectRatio: false)
        #expect(stretch.targetSize(for: huge) == PixelSize(width: 10, height: 10))
    }

    @Test("ImageEncodeOptions.quality: NaN → 0.9, ±inf → 1 or 0; encoding with them does not trap")
    func encodeQuality() throws {
        for (value, clamped) in [(Double.nan, 0.9), (.infinity, 1), (-.infinity, 0), (2, 1), (-1, 0), (0.5, 0.5)] {
            #expect(ImageEncodeOptions(quality: value).quality == clamped, "\(value)")
            var options = ImageEncodeOptions()
            options.quality = value
            #expect(options.quality == clamped, "\(value)")
        }
        let image = DecodedImage(pixels: PixelBuffer(width: 8, height: 8), format: .png)
        for quality in [Double.nan, .infinity, -.infinity] {
            var options = ImageEncodeOptions()
            options.quality = quality
            for format in [ImageFormat.jpeg, .webp] where ImageCodersManager.shared.canEncode(to: format) {
                #expect(!(try ImageCodersManager.shared.encode(image, as: format, options: options)).isEmpty)
            }
        }
    }

    @Test("DecodeQueue(maxConcurrent:) keeps 1…1024, its line at least 1 (10,000 unless given; the shared queue's 100,000)")
    func decodeQueue() async throws {
        #expect(DecodeQueue(maxConcurrent: 1, maxPending: 0).maxPending == 1)
        #expect(DecodeQueue(maxConcurrent: 1, maxPending: .min).maxPending == 1)
        #expect(DecodeQueue(maxConcurrent: 1).maxPending == 10_000)
        #expect(DecodeQueue.shared.maxPending == 100_000)
        #expect(BlockingIOPool(threadCount: 0, maxPending: 0).maxPending == 1)
        #expect(BlockingIOPool(threadCount: 300).threadCount == 256)
        #expect(DecodeQueue(maxConcurrent: 0).maxConcurrent == 1)
        #expect(DecodeQueue(maxConcurrent: .min).maxConcurrent == 1)
        #expect(DecodeQueue(maxConcurrent: .max).maxConcurrent == 1024)
        #expect(DecodeQueue(maxConcurrent: 3).maxConcurrent == 3)
        #expect(try await DecodeQueue(maxConcurrent: .min).run { 42 } == 42)
    }
}
