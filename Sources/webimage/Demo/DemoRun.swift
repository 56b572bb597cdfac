import Foundation
import WebImage
import WebImageTestOrigin

/// The demo's steps, in order, each printing its part of the report.
struct DemoRun {
    let origin: TestOrigin
    let assets: [DemoAsset]
    let cacheDirectory: URL
    let report: DemoReport
    let output: OutputOptions

    /// How many loads the coalescing step starts at once.
    static let concurrentLoads = 50

    /// Every load waits for its disk write, so nothing writes into the cache after the
    /// demo removed it.
    private static let baseOptions: WebImageOptions = [.waitStoreCache]

    private var settings: CommandPipeline.Settings {
        var settings = CommandPipeline.Settings()
        settings.cacheDirectory = cacheDirectory
        return settings
    }

    /// Runs every step; returns the photo to draw at the end.
    func runAll() async -> DecodedImage? {
        let totalBytes = assets.reduce(0) { $0 + $1.body.count }
        report.section("Origin")
        report.line("http://127.0.0.1:\(origin.port)  \(assets.count) images, \(totalBytes) bytes, "
                    + "plus \(DemoGallery.missingPath) (404)")
        report.line("disk cache: \(cacheDirectory.path)")

        let pipeline = CommandPipeline(settings)
        let cold = await loadGallery(pipeline, title: "Cold load: every image from the network", expect: .none,
                                     showsProgress: true)
        report.check(assets.allSatisfy { origin.requestCount($0.path) == 1 },
                     "each image requested from the origin once (\(origin.totalRequests) requests)")
        _ = await loadGallery(pipeline, title: "Again: the same manager answers from memory", expect: .memory)
        let fresh = CommandPipeline(settings)
        _ = await loadGallery(fresh, title: "A fresh manager on the same disk cache", expect: .disk)
        report.check(assets.allSatisfy { origin.requestCount($0.path) == 1 },
                     "no new origin requests for memory and disk loads")
        await fresh.shutdown()

        await coalescing()
        await blockList(pipeline)
        await progressive()
        await thumbnail(pipeline)
        await pipeline.shutdown()
        return cold.first { $0.name.hasPrefix("photo") }.flatMap { try? $0.report.result.get().image }
    }

    // MARK: Steps

    private func loadGallery(_ pipeline: CommandPipeline, title: String, expect: ImageCacheType,
                             showsProgress: Bool = false) async -> [(name: String, report: LoadReport)] {
        report.section(title)
        let bar = output.progressBar(total: assets.count, label: "loading")
        let start = ContinuousClock.now
        let rows = await withTaskGroup(of: (Int, LoadReport).self) { group in
            for (index, asset) in assets.enumerated() {
                let url = origin.url(asset.path).absoluteString
                group.addTask { (index, await PipelineLoad.run(url, pipeline: pipeline, options: Self.baseOptions, context: WebImageContext())) }
            }
            var reports = [LoadReport?](repeating: nil, count: assets.count)
            for await (index, loaded) in group {
                reports[index] = loaded
                if showsProgress { bar.advance(detail: assets[index].path) }
            }
            return zip(assets, reports).compactMap { asset, loaded -> (name: String, report: LoadReport)? in
                loaded.map { (name: asset.title, report: $0) }
            }
        }
        bar.finish()
        report.table(rows)
        let elapsed = start.duration(to: .now).milliseconds
        let matching = rows.filter { row in (try? row.report.result.get().cacheType) == expect }.count
        report.check(matching == assets.count,
                     "\(matching)/\(assets.count) from \(LoadReport.source(expect))" + String(format: " in %.1f ms", elapsed))
        return rows
    }

    private func coalescing() async {
        let n = Self.concurrentLoads
        report.section("\(n) concurrent loads of one URL")
        let pipeline = CommandPipeline(settings)
        let url = origin.url(DemoGallery.coalescingPath).absoluteString
        let start = ContinuousClock.now
        let reports = await withTaskGroup(of: LoadReport.self) { group in
            for _ in 0..<n {
                group.addTask { await PipelineLoad.run(url, pipeline: pipeline, options: Self.baseOptions, context: WebImageContext()) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        await pipeline.shutdown()
        let succeeded = reports.filter(\.isSuccess).count
        let requests = origin.requestCount(DemoGallery.coalescingPath)
        report.line(String(format: "%d loads succeeded in %.1f ms", succeeded, start.duration(to: .now).milliseconds))
        report.check(succeeded == n && requests == 1, "\(n) concurrent loads reached the origin \(requests) time(s)")
    }

    private func blockList(_ pipeline: CommandPipeline) async {
        report.section("A failing URL is blocked on the second try")
        let url = origin.url(DemoGallery.missingPath).absoluteString
        let first = await PipelineLoad.run(url, pipeline: pipeline, options: Self.baseOptions, context: WebImageContext())
        let second = await PipelineLoad.run(url, pipeline: pipeline, options: Self.baseOptions, context: WebImageContext())
        func code(_ r: LoadReport) -> WebImageError? {
            if case .failure(let error) = r.result { return error }
            return nil
        }
        report.line("first try:  " + (code(first)?.description ?? "loaded?"))
        report.line("second try: " + (code(second)?.description ?? "loaded?"))
        let requests = origin.requestCount(DemoGallery.missingPath)
        report.check(code(first)?.code == .invalidDownloadStatusCode && code(second)?.code == .blackListed && requests == 1,
                     "second try blocked without a request (origin saw \(requests) request(s))")
    }

    private func progressive() async {
        report.section("A progressive JPEG arriving in pieces")
        let pipeline = CommandPipeline(settings)
        let url = origin.url(DemoGallery.progressivePath).absoluteString
        let loaded = await PipelineLoad.run(url, pipeline: pipeline, options: Self.baseOptions.union([.progressiveLoad, .fromLoaderOnly]),
                                            context: WebImageContext())
        await pipeline.shutdown()
        report.table([("progressive JPEG", loaded)])
        report.check(loaded.isSuccess && loaded.partials > 0, "\(loaded.partials) partial images before the final one")
    }

    private func thumbnail(_ pipeline: CommandPipeline) async {
        report.section("A thumbnail decoded from the cached original")
        let before = origin.totalRequests
        var context = WebImageContext()
        context.thumbnailPixelSize = PixelSize(width: 160, height: 120)
        let url = origin.url(DemoGallery.photoPath).absoluteString
        let loaded = await PipelineLoad.run(url, pipeline: pipeline, options: Self.baseOptions, context: context)
        report.table([("photo thumbnail", loaded)])
        let image = try? loaded.result.get().image
        let fits = image.map { $0.width <= 160 && $0.height <= 120 } ?? false
        report.check(fits && origin.totalRequests == before,
                     "fits 160x120 (\(image.map { "\($0.width)x\($0.height)" } ?? "none")), no network")
    }
}
