import ArgumentParser
import Foundation
import WebImage

extension FetchCommand {
    /// `fetch` with a bulk flag (`--file`, `--manifest`, `--shard`, `--format`, …): runs
    /// a ``BulkJob`` over `--file LIST` or the URL arguments through `pipeline`, with
    /// `options` and `context` as plain `fetch` built them.
    ///
    /// Exit status: 0 every URL loaded (or was skipped by `--resume`), 1 any failed,
    /// 2 bad usage.
    func runBulk(pipeline: CommandPipeline, options: WebImageOptions, context: WebImageContext) async throws {
        try await BulkJob.launch(
            bulk, urls: urls, out: out, pipeline: pipeline, options: options, context: context,
            concurrency: pipelineOptions.concurrency, sequential: sequential, json: json, output: output)
    }
}

extension BulkJob {
    /// Sets up and runs a job from the command's flags; prints the summary (stdout, or
    /// stderr with `--json`) and throws `ExitCode.failure` when any URL failed.
    static func launch(
        _ bulk: BulkOptions, urls: [String], out: String?, pipeline: CommandPipeline, options: WebImageOptions,
        context: WebImageContext, concurrency: Int?, sequential: Bool, json: Bool, output: OutputOptions
    ) async throws {
        if !urls.isEmpty && bulk.file != nil { throw ValidationError("give URLs or --file LIST, not both") }
        // (Checked here, not in BulkOptions: a dataset job resumes from its stats files.)
        if bulk.resume && bulk.manifest == nil { throw ValidationError("--resume needs --manifest FILE") }
        if out == nil, let flag = [bulk.format.map { _ in "--format" }, bulk.quality.map { _ in "--quality" },
                                   bulk.outLayout.map { _ in "--out-layout" }].compactMap({ $0 }).first {
            throw ValidationError("\(flag) needs --out DIR")
        }
        let list = try bulk.file.map(URLListReader.init(path:)) ?? URLListReader(lines: urls)
        let shard = try bulk.shardSpec()
        let writer = try out.map {
            OutputWriter(directory: $0, filesPerFolder: try bulk.layout(), format: try bulk.outputFormat(),
                         quality: bulk.quality, jobName: shard.map { "shard-\($0.index)-of-\($0.count)" } ?? "all")
        }
        // Everything that can be refused is read before --out is created, so a usage error
        // leaves no empty folder behind.
        var resume: ManifestIndex?
        if bulk.resume, let path = bulk.manifest {
            let read: (index: ManifestIndex?, problem: String?) = try await BlockingIOPool.shared.run {
                do { return (try ManifestIndex.read(path: path), nil) } catch { return (nil, "\(error)") }
            }
            if let problem = read.problem { throw ValidationError(problem) }
            resume = read.index
        }
        if let writer {
            let problem: String? = try await BlockingIOPool.shared.run {
                do { try writer.prepare() } catch { return error.localizedDescription }
                return nil
            }
            if let problem { throw ValidationError("cannot write into --out \(writer.directoryPath): \(problem)") }
        }
        let manifest = try bulk.manifest.map { try ManifestWriter(path: $0) }

        var bulkContext = context
        // The derived image is written to --out; only the downloaded original is worth
        // caching, and encoding the thumbnail again for the disk cache would double the CPU.
        if context.thumbnailPixelSize != nil { bulkContext.storeCacheType = .none }
        let downloads = concurrency ?? 6
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let settings = BulkJob.Settings(
            options: options.union(.avoidMemoryCache), context: bulkContext,
            inFlight: sequential ? 1 : downloads + 2 * cores, json: json, unordered: bulk.unordered,
            shard: shard, isThumbnail: context.thumbnailPixelSize != nil, logsFailures: bulk.logFailures)
        let progress = BulkProgress(isEnabled: output.showsDecoration)
        let job = BulkJob(settings: settings, pipeline: pipeline, loader: BulkLoader(downloader: pipeline.downloader),
                          writer: writer, manifest: manifest, resume: resume, progress: progress)
        let allLoaded = await job.run(list)
        await writer?.finish()
        await pipeline.shutdown()

        let summary = progress.finish()
        if !json {
            print(summary)
        } else if !output.quiet {
            Terminal.writeError(summary + "\n")
        }
        if let problem = list.readError {
            CommandError.report(WebImageError(.cacheIOFailed, "Reading the list stopped: \(problem)"),
                                subject: bulk.file ?? "-")
            throw ExitCode.failure
        }
        if !allLoaded { throw ExitCode.failure }
    }
}
