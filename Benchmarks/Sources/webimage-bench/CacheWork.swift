import Foundation
import Synchronization
import WebImage

/// The cache modes: the library's `MemoryCache` shaped exactly like the locked
/// dictionary of ``ReferenceWork``, and `DiskCache` hits shaped like its raw `read()`.
enum CacheWork {
    /// `ops` gets (or sets) of 1024 keys spread over `threads` threads, the same keys,
    /// image and access pattern as ``ReferenceWork/dictionary(set:ops:threads:iterations:warmup:)``.
    static func memory(set: Bool, ops: Int, threads: Int, iterations: Int, warmup: Int) -> BenchReport {
        let reference = ReferenceWork.Store(entries: 1024)
        let keys = reference.keys
        let image = reference.image
        let cost = image.cost
        // A cost limit far above what 1024 small images need: the limit check runs on
        // every set, as in the manager's memory tier, but nothing is evicted.
        let cache = MemoryCache<String, DecodedImage>(totalCostLimit: 256 << 20)
        for key in keys { cache.setValue(image, forKey: key, cost: cost) }
        let perThread = ops / threads
        let hits = Atomic<Int>(0)
        let samples = Sampler.samples(iterations: iterations, warmup: warmup) {
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                var found = 0
                for i in 0..<perThread {
                    let key = keys[(i &+ thread &* 7) & 1023]
                    if set {
                        cache.setValue(image, forKey: key, cost: cost)
                        found &+= 1
                    } else if cache.value(forKey: key) != nil {
                        found &+= 1
                    }
                }
                hits.add(found, ordering: .relaxed)
            }
        }
        return BenchReport(mode: set ? BenchMode.memoryCacheSet.rawValue : BenchMode.memoryCacheGet.rawValue,
                           ok: hits.load(ordering: .relaxed) > 0, samples: samples,
                           opsPerSample: perThread * threads, peakRSSBytes: ProcessMemory.peakResidentBytes())
    }

    /// `ops` hits of one disk cache entry holding the bytes of the file at `path`,
    /// through the public `async` read path (`DiskCache.data(forKey:)`: key to file
    /// name, the hop to the cache's I/O queue, open/fstat/read/close, the access-date
    /// refresh). The data only: nothing is decoded. The cache lives in a fresh temporary
    /// directory removed afterwards.
    static func diskGet(path: String, ops: Int, readers: Int, iterations: Int, warmup: Int) throws -> BenchReport {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-bench-disk-\(getpid())", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = "https://example.com/images/\(URL(fileURLWithPath: path).lastPathComponent)"
        let perReader = ops / readers
        let measured = try AsyncBridge.wait { () async throws -> (samples: [Double], bytes: Int) in
            let cache = DiskCache(directory: directory)
            try await cache.store(data, forKey: key)
            var bytes = 0
            let samples = try await Sampler.samples(iterations: iterations, warmup: warmup) { () async throws in
                // `readers` tasks asking at once, as concurrent requests for cached images do.
                bytes &+= try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<readers {
                        group.addTask {
                            var got = 0
                            for _ in 0..<perReader {
                                guard let hit = await cache.data(forKey: key) else {
                                    throw UsageError("disk cache missed its entry")
                                }
                                got &+= hit.count
                            }
                            return got
                        }
                    }
                    return try await group.reduce(0, +)
                }
            }
            return (samples, bytes)
        }
        return BenchReport(mode: BenchMode.diskCacheGet.rawValue, ok: measured.bytes > 0, samples: measured.samples,
                           opsPerSample: perReader * readers, peakRSSBytes: ProcessMemory.peakResidentBytes())
    }
}
