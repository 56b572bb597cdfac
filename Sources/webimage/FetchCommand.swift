import ArgumentParser
import Foundation
import WebImage

/// `webimage fetch URL...`: loads images through the pipeline (memory → disk → network).
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load images through the cache and downloader, as an app would.",
        discussion: """
            All URLs start at once in one process, so equal URLs share one transfer; \
            --sequential loads them one after another in the given order. With --json, \
            one line per URL in input order: url, ok, cacheType (none|memory|disk), \
            format, width, height, frames, loopCount, bytes (encoded size; 0 for a memory \
            hit), ms, partials (progressive images before the final one); or url, ok \
            and error {code, name, message}.
            Each load finishes its disk-cache write before the tool exits.
            Exit status: 0 all loaded, 1 any failed, 2 bad usage.
            """
    )

    /// `--timeout` when img2dataset's flags are given and it is not: img2dataset's default.
    static let datasetTimeout: Double = 10

    @Argument(help: "http:, https:, file: or data: URLs.")
    var urls: [String] = []

    @OptionGroup var pipelineOptions: PipelineOptions

    @Flag(name: .customLong("memory-only"), help: "Use only the memory cache: read and write nothing on disk.")
    var memoryOnly = false

    @Option(name: .customLong("option"), help: "A WebImageOptions name (repeatable), e.g. retryFailed, progressiveLoad.")
    var optionNames: [String] = []

    @Option(parsing: .unconditional, help: "Seconds before a transfer times out: 0.001 to 86400, one day (default \(Int(DownloaderConfig.default.downloadTimeout)); with img2dataset's flags \(Int(Self.datasetTimeout)), as img2dataset).")
    var timeout: Double?

    @Option(name: .customLong("header"), help: "'Name: value' sent with every request (repeatable).")
    var headers: [String] = []

    @Option(parsing: .unconditional, help: "Decode to fit WxH pixels, each side 1 to 65535, keeping the aspect ratio (cached under its own key).")
    var thumbnail: String?

    @Flag(help: "Load one URL after another, in order.")
    var sequential = false

    @Flag(help: "Print one JSON object per URL, in input order, and nothing else on stdout.")
    var json = false

    @Option(help: "Write each image into DIR, named like its disk cache file; with any bulk flag (--file, --format, --out-layout…) named by list index instead (000000042.jpg), and with img2dataset's flags as img2dataset names them, and then DIR may be s3://bucket/prefix (AWS_* environment variables).")
    var out: String?

    @OptionGroup var output: OutputOptions
    @OptionGroup var metricsOptions: MetricsOptions
    @OptionGroup(title: "Bulk jobs") var bulk: BulkOptions
    @OptionGroup(title: "Datasets (img2dataset's flags)") var dataset: DatasetOptions

    func validate() throws {
        if urls.isEmpty && bulk.file == nil { throw ValidationError("give at least one URL or --file LIST") }
        if let name = optionNames.first(where: { WebImageOptions.byName[$0] == nil }) {
            throw ValidationError("unknown --option '\(name)'; known: \(WebImageOptions.byName.keys.sorted().joined(separator: ", "))")
        }
        if let timeout { try NumericOption.checkTimeout(timeout) }
        if let header = headers.first(where: { CommandPipeline.parseHeader($0) == nil }) {
            throw ValidationError("--header '\(header)' is not 'Name: value'")
        }
        if let thumbnail { _ = try NumericOption.thumbnail(thumbnail) }
        // Only dataset jobs upload (their shards are whole files); other writes are local.
        if let out, !dataset.isActive, let scheme = S3Destination.scheme(of: out), scheme != "file" {
            throw ValidationError("--out \(out): \(scheme):// is written only by dataset jobs (--file with img2dataset's "
                + "flags, e.g. --output-format webdataset); otherwise --out is a local folder")
        }
    }

    func run() async throws {
        output.bootstrapLogging()
        let metricsReport = metricsOptions.start()
        defer { metricsReport?.print() }
        if dataset.isActive { return try await runDataset() }
        let outDirectory = try out.map(Self.makeDirectory)
        var settings = pipelineOptions.settings
        settings.memoryOnly = memoryOnly
        settings.timeout = timeout
        settings.headers = headers.compactMap(CommandPipeline.parseHeader)
        let pipeline = CommandPipeline(settings)
        // The process exits right after the loads, so each waits for its disk write.
        let options = optionNames.reduce(into: WebImageOptions.waitStoreCache) { $0.formUnion(WebImageOptions.byName[$1] ?? []) }
        var context = WebImageContext()
        context.thumbnailPixelSize = try thumbnail.map(NumericOption.thumbnail)
        if bulk.isActive { return try await runBulk(pipeline: pipeline, options: options, context: context) }

        let bar = output.progressBar(total: urls.count, label: "fetch")
        let reports = await load(pipeline: pipeline, options: options, context: context, bar: bar)
        bar.finish()
        await pipeline.shutdown()

        var anyFailed = false
        for report in reports {
            if case .success(let loaded) = report.result, let outDirectory, let image = loaded.image {
                do {
                    try Self.write(image, data: loaded.data, key: loaded.cacheKey ?? report.url, into: outDirectory)
                } catch {
                    anyFailed = true
                    CommandError.report(error, subject: report.url)
                }
            }
            if json { print(report.jsonLine.text) }
            switch report.result {
            case .success: if !json { print(report.text) }
            case .failure(let error):
                anyFailed = true
                CommandError.report(error, subject: report.url)
            }
        }
        if anyFailed { throw ExitCode.failure }
    }

    private func load(pipeline: CommandPipeline, options: WebImageOptions, context: WebImageContext,
                      bar: ProgressBar) async -> [LoadReport] {
        if sequential {
            var reports: [LoadReport] = []
            for url in urls {
                reports.append(await PipelineLoad.run(url, pipeline: pipeline, options: options, context: context))
                bar.advance(detail: url)
            }
            return reports
        }
        return await withTaskGroup(of: (Int, LoadReport).self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask { (index, await PipelineLoad.run(url, pipeline: pipeline, options: options, context: context)) }
            }
            var reports = [LoadReport?](repeating: nil, count: urls.count)
            for await (index, report) in group {
                reports[index] = report
                bar.advance(detail: report.url)
            }
            return reports.compactMap { $0 }
        }
    }

    private static func makeDirectory(_ path: String) throws -> URL {
        let url = URL(fileURLWithPath: path, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("cannot create --out directory \(path): \(error.localizedDescription)")
        }
        return url
    }

    /// Writes the downloaded bytes, or for images without them (memory hits, thumbnails)
    /// the image encoded in its own format when a coder can, else as PNG.
    static func write(_ image: DecodedImage, data: Data?, key: String, into directory: URL) throws {
        let coders = ImageCodersManager.shared
        let bytes = try data ?? coders.encode(image, as: coders.canEncode(to: image.format) ? image.format : .png,
                                              options: ImageEncodeOptions())
        let file = directory.appendingPathComponent(CacheKey.fileName(for: key))
        do {
            try bytes.write(to: file, options: .atomic)
        } catch {
            throw WebImageError(.cacheIOFailed, "Cannot write \(file.path): \(error.localizedDescription)")
        }
    }
}
