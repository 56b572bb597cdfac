import ArgumentParser
import Foundation
import WebImage

/// `webimage prefetch URL... | --file LIST`: warms the disk cache with ``ImagePrefetcher``.
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Load images into the cache ahead of time, at low priority.",
        discussion: """
            URLs come from the arguments or from --file LIST (one per line; blank lines and \
            lines starting with # are skipped; - reads stdin). With --json, one line per URL \
            in input order: url, ok, cacheType (none = downloaded now, disk = already cached), \
            format, width, height, frames, loopCount, bytes; or url, ok and error.
            Exit status: 0 all cached, 1 any failed, 2 bad usage.
            """
    )

    @Argument(help: "http:, https:, file: or data: URLs.")
    var urls: [String] = []

    @Option(help: "A file listing URLs, one per line (- for stdin).")
    var file: String?

    @OptionGroup var pipelineOptions: PipelineOptions

    @Flag(help: "Print one JSON object per URL, in input order, and nothing else on stdout.")
    var json = false

    @OptionGroup var output: OutputOptions
    @OptionGroup var metricsOptions: MetricsOptions
    @OptionGroup(title: "Bulk jobs") var bulk: PrefetchBulkOptions

    func validate() throws {
        if urls.isEmpty == (file == nil) { throw ValidationError("give URLs or --file LIST, not both") }
    }

    func run() async throws {
        output.bootstrapLogging()
        let metricsReport = metricsOptions.start()
        defer { metricsReport?.print() }
        let inputs = bulk.isActive ? [] : try file.map(Self.readList) ?? urls
        var settings = pipelineOptions.settings
        // The prefetcher's limit decides how many run; the downloader gets the same one.
        let concurrency = settings.concurrency ?? 3
        settings.concurrency = concurrency
        let pipeline = CommandPipeline(settings)
        if bulk.isActive { return try await runBulk(pipeline: pipeline) }
        let prefetcher = ImagePrefetcher(manager: pipeline.manager)
        prefetcher.maxConcurrentPrefetchCount = concurrency
        // The process exits right after: each load must finish writing to disk first.
        prefetcher.options.insert(.waitStoreCache)

        let valid = inputs.compactMap { text in URL(string: text).flatMap { $0.scheme == nil ? nil : $0 } }
        let bar = output.progressBar(total: valid.count, label: "prefetch")
        let start = ContinuousClock.now
        let result = await prefetcher.prefetch(valid) { _, _, _ in bar.advance() }
        bar.finish()
        let elapsed = start.duration(to: .now).milliseconds

        var anyFailed = false
        for text in inputs {
            let line = await report(text, pipeline: pipeline)
            if case .failure(let error) = line.outcome {
                anyFailed = true
                CommandError.report(error, subject: text)
            }
            if json { print(line.json.text) }
        }
        await pipeline.shutdown()
        if !json {
            print("prefetched \(result.finishedCount) of \(inputs.count) URLs"
                  + (result.skippedCount > 0 ? " (\(result.skippedCount) skipped)" : "")
                  + String(format: " in %.1f ms", elapsed))
        }
        if anyFailed { throw ExitCode.failure }
    }

    /// One URL's line, from what the loader saw and what is now in the cache.
    private func report(_ text: String, pipeline: CommandPipeline) async
        -> (json: JSONLine, outcome: Result<Void, WebImageError>) {
        var line = JSONLine()
        line.add("url", text.redactedURLForLog)
        func failed(_ error: WebImageError) -> (JSONLine, Result<Void, WebImageError>) {
            line.add("ok", false)
            line.add("error", object: .error(error))
            return (line, .failure(error))
        }
        guard let url = URL(string: text), url.scheme != nil, let key = pipeline.manager.cacheKey(for: url) else {
            return failed(WebImageError(.invalidURL, "Not a URL: \(text)"))
        }
        let outcome = pipeline.recorder.outcome(for: url)
        if case .failed(let error)? = outcome { return failed(error) }
        guard let image = pipeline.cache.imageFromMemory(forKey: key) else {
            return failed(WebImageError(.notInCache, "\(text.redactedURLForLog) was not cached (the prefetch skipped it)"))
        }
        var bytes = 0
        if case .loaded(_, let body)? = outcome {
            bytes = body
        } else {
            bytes = await pipeline.cache.diskData(forKey: key)?.count ?? 0
        }
        line.add("ok", true)
        line.add("cacheType", (outcome == nil ? ImageCacheType.disk : .none).rawValue)
        line.add("format", image.format.rawValue)
        line.add("width", image.width)
        line.add("height", image.height)
        line.add("frames", image.frameCount)
        line.add("loopCount", image.loopCount)
        line.add("bytes", bytes)
        return (line, .success(()))
    }

    /// The URLs in a list file: one per line, without blank lines and `#` comments.
    static func readList(_ path: String) throws -> [String] {
        let data: Data
        do {
            data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("cannot read --file \(path): \(error.localizedDescription)")
        }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }
}
