import Foundation
import WebImage

/// The manager modes: a load answered from the memory cache, through the whole
/// `ImageManager` pipeline (cache key, failed-URL check, memory query, delivery).
enum ManagerWork {
    /// `ops` sequential `ImageManager.loadImage(with:)` calls (the `async` form, default
    /// options) of one URL whose image is already in the manager's memory cache: the
    /// async API answers a memory hit on the calling task, with no queue hop. The cache's
    /// disk directory is a fresh temporary one, removed afterwards; the loader is never
    /// asked (a miss fails the run).
    static func memoryHit(ops: Int, iterations: Int, warmup: Int) throws -> BenchReport {
        guard let url = URL(string: "http://127.0.0.1:9/images/hit.jpg") else { throw UsageError("bad URL") }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-bench-manager-\(getpid())", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let samples = try AsyncBridge.wait { () async throws -> [Double] in
            let memory = MemoryCache.withDefaultLimits()
            let downloader = ImageDownloader(config: DownloaderConfig())
            let manager = ImageManager(
                memoryCache: memory, diskCache: DiskCache(directory: directory.appendingPathComponent("bench")), loader: downloader)
            let image = DecodedImage(pixels: PixelBuffer(width: 32, height: 32), format: .jpeg)
            guard let key = manager.cacheKey(for: url) else { throw UsageError("no cache key for \(url)") }
            memory.setValue(image, forKey: key, cost: image.cost)
            do {
                let samples = try await Sampler.samples(iterations: iterations, warmup: warmup) { () async throws in
                    for _ in 0..<ops {
                        let result = try await manager.loadImage(with: url)
                        guard result.cacheType == .memory else { throw UsageError("the load missed the memory cache") }
                    }
                }
                await downloader.shutdown()
                return samples
            } catch {
                await downloader.shutdown()
                throw error
            }
        }
        return BenchReport(mode: BenchMode.managerMemoryHit.rawValue, ok: true, samples: samples,
                           opsPerSample: ops, peakRSSBytes: ProcessMemory.peakResidentBytes())
    }

    /// Each iteration: a new `ImageManager` over a new downloader allowing `concurrency`
    /// transfers and its own two tiers, a memory tier with the default limits and a disk
    /// tier in a fresh temporary directory (cold memory and disk), every URL loaded at once
    /// with default options (so each image is decoded and stored in both tiers; with
    /// `memoryOnly`, `cacheMemoryOnly`: in memory only). Creating and removing the
    /// directory is not timed; releasing the images the memory tier keeps is (the round's
    /// last step, `removeAll()`). The disk writes a load starts in the
    /// background are timed as far as they overlap the loads; after the round, untimed,
    /// the cache is flushed, so no round inherits the last one's backlog and each writes
    /// every entry (a round that stored fewer than one entry per URL fails the run).
    static func download(
        paths: [String], concurrency: Int, memoryOnly: Bool = false, iterations: Int, warmup: Int
    ) throws -> BenchReport {
        let options: WebImageOptions = memoryOnly ? [.cacheMemoryOnly] : []
        let urls = try NetworkWork.urls(in: paths)
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-bench-manager-download-\(getpid())", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let measured = try AsyncBridge.wait { () async throws -> (samples: [Double], cores: Double?, pixels: Int) in
            var pixels = 0, round = 0
            let writes = RoundWrites(expected: memoryOnly ? 0 : Set(urls).count)
            let (samples, cores) = try await Sampler.samplesAndCores(
                iterations: iterations, warmup: warmup, settle: { await writes.settle() }
            ) { () async throws in
                round += 1
                var config = DownloaderConfig()
                config.maxConcurrentDownloads = concurrency
                let downloader = ImageDownloader(config: config)
                let memory = MemoryCache.withDefaultLimits()
                let disk = DiskCache(directory: root.appendingPathComponent("\(round)/bench"))
                let manager = ImageManager(memoryCache: memory, diskCache: disk, loader: downloader)
                // The cache outlives the round until the settle step, not the manager (nor
                // the downloader it holds), which the round releases as it ends.
                let cache = manager.imageCache
                writes.keep(disk, flush: { await cache.flush() })
                do {
                    pixels = try await withThrowingTaskGroup(of: Int.self) { group in
                        for url in urls {
                            group.addTask {
                                let result = try await manager.loadImage(with: url, options: options)
                                return result.image.width * result.image.height
                            }
                        }
                        return try await group.reduce(0, +)
                    }
                } catch {
                    await downloader.shutdown()
                    throw error
                }
                await downloader.shutdown()
                // The images the memory cache keeps are released inside the round, as the
                // keep floor releases its array, whether or not the cache is still held by
                // its disk writes (or by `written`, until the settle step).
                memory.removeAll()
            }
            try writes.check()
            return (samples, cores, pixels)
        }
        let mode: BenchMode = memoryOnly ? .managerDownloadMemory : .managerDownload
        return BenchReport(mode: mode.rawValue, ok: measured.pixels > 0, samples: measured.samples,
                           opsPerSample: urls.count, pixelsPerSample: measured.pixels,
                           peakRSSBytes: ProcessMemory.peakResidentBytes(), coresBusy: measured.cores)
    }
}
