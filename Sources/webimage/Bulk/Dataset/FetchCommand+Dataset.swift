import ArgumentParser
import Foundation
import WebImage

extension FetchCommand {
    /// `fetch --file LIST --out DIR` with img2dataset's flags: a ``DatasetJob`` writing
    /// shards into `--out`.
    ///
    /// Exit status: 0 when every shard of the job was written (failed samples are
    /// recorded in the shards, as img2dataset does), 1 when the list could not be read to
    /// its end, a shard could not be written, or not one sample succeeded (img2dataset
    /// exits 0 then; a job that produced nothing is more likely a wrong column or a dead
    /// network than a result), 2 for bad usage. A usage error leaves no `--out` folder behind.
    func runDataset() async throws {
        let problems = [(urls.isEmpty ? nil : "URL arguments"), (bulk.file == nil ? "no --file LIST" : nil),
                        (out == nil ? "no --out DIR" : nil), (bulk.manifest.map { _ in "--manifest" }),
                        (bulk.outLayout.map { _ in "--out-layout" }), (bulk.format.map { _ in "--format" }),
                        (bulk.quality.map { _ in "--quality" }), (thumbnail.map { _ in "--thumbnail" }),
                        (json ? "--json" : nil), (bulk.unordered ? "--unordered" : nil)].compactMap { $0 }
        if let problem = problems.first {
            throw ValidationError("img2dataset flags (--input-format, --output-format, …) take --file LIST and --out DIR; "
                + "\(problem) does not fit them (see --help)")
        }
        guard let file = bulk.file, let out else { return }
        let (format, formatName) = try dataset.format()
        let columns = try dataset.columns()
        let directory = URL(fileURLWithPath: out, isDirectory: true)
        // The list is opened first, so a usage error (a missing list, a wrong format) leaves
        // no empty --out folder behind.
        let reader: DatasetRowReader
        do {
            reader = try DatasetRowReader(path: file, formatName: formatName, format: format, columns: columns)
            try await reader.open()
        } catch {
            throw ValidationError("\(error)")
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("cannot create --out directory \(out): \(error.localizedDescription)")
        }

        let naming = ShardNaming(samplesPerShard: dataset.samplesPerShard ?? DatasetOptions.defaultSamplesPerShard)
        let downloader = ImageDownloader(config: downloaderConfig())
        let gate = HostGate(limit: dataset.perHostConcurrency ?? DatasetOptions.defaultPerHostConcurrency,
                            ratePerSecond: dataset.perHostRate)
        var fetcher = SampleFetcher(downloader: downloader, gate: gate,
                                    robots: RobotsTag(disallowed: dataset.directives, token: dataset.userAgentToken),
                                    retries: pipelineOptions.retries ?? 0)
        fetcher.allowsFileURLs = dataset.allowFileURLs
        fetcher.maxBytes = downloader.config.maxResponseBytes
        let imageSettings = try dataset.imageSettings()
        var settings = DatasetJob.Settings(naming: naming, encodeFormat: imageSettings.format,
                                           shardSelection: try bulk.shardSpec())
        settings.inFlight = (pipelineOptions.concurrency ?? PipelineOptions.datasetConcurrency) + 2 * ProcessInfo.processInfo.activeProcessorCount
        let job = DatasetJob(settings: settings, reader: reader, fetcher: fetcher,
                             processor: SampleProcessor(settings: imageSettings),
                             output: ShardOutput(directory: directory, layout: try dataset.layout(), naming: naming),
                             doneShards: bulk.resume ? Self.finishedShards(in: directory) : [])
        let start = ContinuousClock.now
        let outcome: Result<DatasetJob.Summary, DatasetInputError>
        do throws(DatasetInputError) {
            outcome = .success(try await job.run())
        } catch {
            outcome = .failure(error)
        }
        await downloader.shutdown()
        let writeErrors = job.output.errors
        for error in writeErrors.prefix(20) { Terminal.writeError("webimage: \(error)\n") }
        switch outcome {
        case .failure(let error):
            Terminal.writeError("webimage: reading \(file) stopped: \(error)\n")
            throw ExitCode.failure
        case .success(let summary):
            print(Self.summaryLine(summary, seconds: Double(start.duration(to: .now).milliseconds) / 1000))
            if summary.samples > 0 && summary.successes == 0 {
                Terminal.writeError("webimage: not one of the \(summary.samples) samples succeeded; the first failed with: "
                    + "\(summary.firstFailure ?? "?") (each sample's error is in its shard's metadata)\n")
                throw ExitCode.failure
            }
            if !writeErrors.isEmpty { throw ExitCode.failure }
        }
    }

    /// The downloader of a dataset job: every final status handed over (``SampleFetcher``
    /// reads them), retries done by the job, and every host name looked up through a
    /// ``CachingHostResolver`` whose answer the connection then uses.
    private func downloaderConfig() -> DownloaderConfig {
        var config = DownloaderConfig.default
        config.maxConcurrentDownloads = pipelineOptions.concurrency ?? PipelineOptions.datasetConcurrency
        // img2dataset's default socket timeout.
        config.downloadTimeout = timeout ?? Self.datasetTimeout
        config.acceptableStatusCodes = SampleFetcher.acceptedStatuses
        config.retryPolicy = .none
        for header in headers.compactMap(CommandPipeline.parseHeader) {
            config.httpHeaders.remove(header.name)
            config.httpHeaders.add(name: header.name, value: header.value)
        }
        if let token = dataset.userAgentToken?.trimmingCharacters(in: .whitespaces).lowercased(), !token.isEmpty {
            let agent = config.httpHeaders["User-Agent"] ?? DownloaderConfig.userAgent
            config.httpHeaders.remove("User-Agent")
            config.httpHeaders.add(name: "User-Agent", value: "\(agent) (compatible; \(token))")
        }
        let resolver = CachingHostResolver()
        config.hopPolicy.addresses = pipelineOptions.blockPrivateAddresses
            ? AddressPolicy(resolver: resolver) : AddressPolicy(refusedKinds: [], resolver: resolver)
        return config
    }

    /// Shard numbers with a `NNNNN_stats.json` in `directory`: img2dataset's own test of a
    /// finished shard.
    static func finishedShards(in directory: URL) -> Set<Int> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return Set(names.compactMap { name -> Int? in
            guard name.hasSuffix("_stats.json") else { return nil }
            return Int(name.dropLast("_stats.json".count))
        })
    }

    /// `wrote 10 shards (2 already there): 9500 of 10000 samples in 12.3 s (772.4 images/s); …`
    static func summaryLine(_ s: DatasetJob.Summary, seconds: Double) -> String {
        var text = "wrote \(s.shardsWritten) shard\(s.shardsWritten == 1 ? "" : "s")"
        if s.shardsSkipped > 0 { text += " (\(s.shardsSkipped) already there)" }
        text += ": \(s.successes) of \(s.samples) samples in " + String(format: "%.1f s (%.1f images/s)", seconds,
                                                                         Double(s.successes) / max(seconds, 1e-9))
        if s.failedToDownload > 0 { text += "; failed to download \(s.failedToDownload)" }
        if s.failedToResize > 0 { text += "; failed to resize \(s.failedToResize)" }
        return text
    }
}
