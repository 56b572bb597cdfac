import Foundation
import WebImage

/// The network modes, through `ImageDownloader`: download + decode of a URL list with
/// a cold downloader, and many concurrent loads of one URL (coalescing).
enum NetworkWork {
    /// The URLs listed in `paths` (one per line, blank lines ignored).
    static func urls(in paths: [String]) throws -> [URL] {
        var urls: [URL] = []
        for path in paths {
            let text = try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
            for line in text.split(whereSeparator: \.isNewline) where !line.isEmpty {
                guard let url = URL(string: String(line)) else { throw UsageError("not a URL: \(line)") }
                urls.append(url)
            }
        }
        guard !urls.isEmpty else { throw UsageError("no URLs in \(paths)") }
        return urls
    }

    /// `mode`, one of ``BenchMode/download``, ``BenchMode/downloadData``,
    /// ``BenchMode/downloadKeep`` and ``BenchMode/downloadKeepWrite``. Each iteration: a new
    /// downloader allowing `concurrency` transfers (so no pooled connection survives from
    /// the previous one), every URL requested at once (the downloader queues all but
    /// `concurrency`), each body decoded to RGBA (`downloadData`: `.avoidDecodeImage`,
    /// bodies only). `downloadKeep` and `downloadKeepWrite` keep every decoded image
    /// until the round's last one is decoded, then release them, as the manager row's
    /// memory cache keeps and releases them: the floor of any cache that keeps decoded
    /// images. The sample ends after the downloader is shut down, as the aiohttp peer's
    /// ends after its session is closed.
    ///
    /// `downloadKeepWrite` also hands each body to a `DiskCache` in a fresh
    /// temporary directory as it is decoded, as the manager's background store hands it
    /// (without the HTTP metadata attribute the manager attaches): the keep floor plus the
    /// files a disk cache must write, none of the manager's own work. Creating and removing
    /// the directory is not timed; after the round, untimed, the cache is flushed (a round
    /// that stored fewer entries than URLs fails the run), as the manager row settles.
    static func download(_ mode: BenchMode, paths: [String], concurrency: Int,
                         iterations: Int, warmup: Int) throws -> BenchReport {
        let urls = try urls(in: paths)
        let dataOnly = mode == .downloadData, write = mode == .downloadKeepWrite
        let keep = write || mode == .downloadKeep
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-bench-keep-write-\(getpid())", isDirectory: true)
        defer { if write { try? FileManager.default.removeItem(at: root) } }
        let measured = try AsyncBridge.wait { () async throws -> (samples: [Double], cores: Double?, pixels: Int) in
            var pixels = 0, round = 0
            let writes = RoundWrites(expected: Set(urls).count)
            let (samples, cores) = try await Sampler.samplesAndCores(
                iterations: iterations, warmup: warmup, settle: { await writes.settle() }
            ) { () async throws in
                round += 1
                var config = DownloaderConfig()
                config.maxConcurrentDownloads = concurrency
                let downloader = ImageDownloader(config: config)
                let disk = write ? DiskCache(directory: root.appendingPathComponent("\(round)/bench")) : nil
                if let disk { writes.keep(disk, flush: { await disk.flush() }) }
                do {
                    pixels = try await loadAll(urls, with: downloader, options: dataOnly ? [.avoidDecodeImage] : [],
                                               keep: keep, writingTo: disk)
                } catch {
                    await downloader.shutdown()
                    throw error
                }
                await downloader.shutdown()
            }
            try writes.check()
            return (samples, cores, pixels)
        }
        return BenchReport(mode: mode.rawValue, ok: measured.pixels > 0, samples: measured.samples,
                           opsPerSample: urls.count, pixelsPerSample: measured.pixels,
                           peakRSSBytes: ProcessMemory.peakResidentBytes(), coresBusy: measured.cores)
    }

    /// `count` loads of the one URL in `arguments`, all started at once on a new
    /// downloader; `compare` counts the requests the origin logged.
    static func coalesce(url text: String, count: Int) throws -> BenchReport {
        guard let url = URL(string: text) else { throw UsageError("coalesce needs a URL") }
        let measured = try AsyncBridge.wait { () async throws -> (seconds: Double, pixels: Int) in
            let downloader = ImageDownloader(config: DownloaderConfig())
            let clock = ContinuousClock()
            let start = clock.now
            let pixels: Int
            do {
                pixels = try await loadAll(Array(repeating: url, count: count), with: downloader)
            } catch {
                await downloader.shutdown()
                throw error
            }
            let elapsed = Sampler.seconds(clock.now - start)
            await downloader.shutdown()
            return (elapsed, pixels)
        }
        return BenchReport(mode: BenchMode.coalesce.rawValue, ok: measured.pixels > 0, samples: [measured.seconds],
                           opsPerSample: count, pixelsPerSample: measured.pixels,
                           peakRSSBytes: ProcessMemory.peakResidentBytes())
    }

    /// Loads every URL concurrently; returns the decoded pixels (with `.avoidDecodeImage`,
    /// the bytes received). With `keep`, the decoded images are held until the last one
    /// is in, and released when this returns; with a `disk`, each body is stored in it in
    /// the background. Any failure fails all.
    static func loadAll(_ urls: [URL], with downloader: ImageDownloader,
                        options: WebImageOptions = [], keep: Bool = false, writingTo disk: DiskCache? = nil) async throws -> Int {
        try await withThrowingTaskGroup(of: (Int, DecodedImage?).self) { group in
            for url in urls {
                group.addTask {
                    let response = try await downloader.loadImage(with: url, options: options)
                    if let disk, let data = response.data { disk.store(data, forKey: url.absoluteString, completion: nil) }
                    if options.contains(.avoidDecodeImage) {
                        guard let data = response.data, !data.isEmpty else { throw UsageError("no data for \(url)") }
                        return (data.count, nil)
                    }
                    guard let image = response.image else { throw UsageError("no image for \(url)") }
                    return (image.width * image.height, keep ? image : nil)
                }
            }
            var pixels = 0
            var kept: [DecodedImage] = []
            if keep { kept.reserveCapacity(urls.count) }
            for try await (count, image) in group {
                pixels += count
                if let image { kept.append(image) }
            }
            return pixels
        }
    }
}
