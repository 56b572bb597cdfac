import Foundation
import WebImage

/// The manager modes: a load answered from the memory cache, through the whole
/// `ImageManager` pipeline (cache key, failed-URL check, memory query, delivery).
enum ManagerWork {
    /// `ops` sequential `ImageManager.loadImage(with:options:)` calls (the `async` form)
    /// of one URL whose image is already in the manager's memory cache, with
    /// `.queryMemorySync`: the hit is answered on the calling thread, as SDWebImage answers
    /// memory hits (without it every load hops to the cache's and the manager's queues). The
    /// cache's disk directory is a fresh temporary one, removed afterwards; the loader is
    /// never asked (a miss fails the run).
    static func memoryHit(ops: Int, iterations: Int, warmup: Int) throws -> BenchReport {
        guard let url = URL(string: "http://127.0.0.1:9/images/hit.jpg") else { throw UsageError("bad URL") }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-bench-manager-\(getpid())", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let samples = try AsyncBridge.wait { () async throws -> [Double] in
            let cache = ImageCache(namespace: "bench", directory: directory)
            let downloader = ImageDownloader(config: DownloaderConfig())
            let manager = ImageManager(cache: cache, loader: downloader)
            let image = DecodedImage(pixels: PixelBuffer(width: 32, height: 32), format: .jpeg)
            guard let key = manager.cacheKey(for: url) else { throw UsageError("no cache key for \(url)") }
            cache.memoryCache.setValue(image, forKey: key, cost: image.cost)
            do {
                let samples = try await Sampler.samples(iterations: iterations, warmup: warmup) { () async throws in
                    for _ in 0..<ops {
                        let result = try await manager.loadImage(with: url, options: [.queryMemorySync])
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
}
