import ArgumentParser
import Foundation
import WebImage

/// Runs a ``DatasetPlan``: opens the list, prepares the output folder for the plan's
/// incremental mode, runs the ``DatasetJob`` and prints its summary line.
///
/// Exit status (thrown as `ExitCode`): 0 when every shard of the job was written (failed
/// samples are recorded in the shards, as img2dataset does), 1 when the list could not be
/// read to its end, a shard could not be written, or — with
/// ``DatasetPlan/failsWhenNothingSucceeds``, as `fetch --file` sets it — not one sample
/// succeeded (img2dataset exits 0 then, and so does `webimage img2dataset`, saying so on
/// stderr; a job that produced nothing is more likely a wrong column or a dead network than
/// a result); a `ValidationError` (status 2) for a list or folder that cannot
/// be used, before any download and before the output folder is made.
///
/// An `s3://bucket/prefix` output folder (``S3Destination``) is checked first (missing
/// credentials: status 2 before anything is read), then listed once (a refused listing:
/// status 1 before any download); the shards are written to a spool folder and uploaded by
/// ``S3ShardPublisher`` (a failed upload: status 1).
struct DatasetRunner {
    let plan: DatasetPlan

    func run() async throws {
        // An s3:// output folder's settings first: missing credentials are a usage error
        // before anything is read, fetched or written.
        let s3 = try S3Destination.parse(plan.out, environment: ProcessInfo.processInfo.environment)
        // The list next: a list that cannot be read leaves the output folder as it was.
        let reader = try await openList()
        if let s3 {
            let client = S3ObjectClient(destination: s3)
            let spool = FileManager.default.temporaryDirectory
                .appendingPathComponent("webimage-s3-spool-\(UUID().uuidString)", isDirectory: true)
            let outcome: Result<Void, any Error>
            do {
                try await run(reader: reader, s3: client, spool: spool)
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            await client.shutdown()
            await SpoolFile.remove(spool.path)
            try outcome.get()
            return
        }
        let directory = URL(fileURLWithPath: Self.localPath(plan.out), isDirectory: true)
        var doneShards: Set<Int> = []
        var firstShard = 0
        let existing = FileManager.default.fileExists(atPath: directory.path)
        switch plan.incremental {
        case .incremental:
            doneShards = Self.finishedShards(in: directory)
        case .extend:
            firstShard = (Self.finishedShards(in: directory).max() ?? -1) + 1
        case .overwrite where existing:
            // img2dataset removes the folder outright; a folder holding the list itself, or
            // the root, is refused rather than emptied.
            let folder = directory.standardizedFileURL.resolvingSymlinksInPath().path
            let list = URL(fileURLWithPath: plan.file).standardizedFileURL.resolvingSymlinksInPath().path
            if folder == "/" || list == folder || list.hasPrefix(folder + "/") {
                throw ValidationError("incremental_mode overwrite would remove \(plan.out), which holds the list \(plan.file); "
                    + "write the output elsewhere")
            }
            do {
                try FileManager.default.removeItem(at: directory)
            } catch {
                throw ValidationError("cannot remove the output folder \(plan.out) (incremental_mode overwrite): "
                    + error.localizedDescription)
            }
        case .overwrite, .rewrite:
            break
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("cannot create the output folder \(plan.out): \(error.localizedDescription)")
        }
        try await run(reader: reader, directory: directory, doneShards: doneShards, firstShard: firstShard, s3: nil)
    }

    /// The list, opened (its first file and columns checked); a usage error when it cannot be.
    private func openList() async throws -> DatasetRowReader {
        do {
            let reader = try DatasetRowReader(path: plan.file, formatName: plan.formatName, format: plan.format,
                                              columns: plan.columns, spelling: plan.spelling)
            try await reader.open()
            return reader
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// Reads the whole list as ``run()`` would and counts its rows and the shards they make
    /// (every input file starts a new shard, as in ``DatasetJob``), writing nothing: a list
    /// that cannot be opened is a `ValidationError` (status 2), one that stops mid-way status 1.
    func countShards() async throws -> (rows: Int, shards: Int) {
        let reader = try await openList()
        var rows = 0, shards = 0, inFile = 0
        do throws(DatasetInputError) {
            while let item = try await reader.next() {
                guard case .row = item else {
                    shards += (inFile + plan.samplesPerShard - 1) / plan.samplesPerShard
                    inFile = 0
                    continue
                }
                rows += 1
                inFile += 1
            }
        } catch {
            Terminal.writeError("webimage: reading \(plan.file) stopped: \(error)\n")
            throw ExitCode.failure
        }
        return (rows, shards)
    }

    /// Runs the job into `directory` (the output folder, or the spool of `s3`) and prints its summary.
    func run(reader: DatasetRowReader, directory: URL, doneShards: Set<Int>, firstShard: Int,
                     s3: S3ObjectClient?) async throws {
        let naming = ShardNaming(samplesPerShard: plan.samplesPerShard, shardDigits: plan.shardDigits)
        let downloader = ImageDownloader(config: Self.downloaderConfig(for: plan))
        let fetcher = Self.sampleFetcher(for: plan, downloader: downloader)
        var settings = DatasetJob.Settings(naming: naming, encodeFormat: plan.image.format,
                                           shardSelection: plan.shardSelection)
        settings.firstShard = firstShard
        settings.recordColumns = RecordColumns(hash: plan.image.hash, exif: plan.image.extractsEXIF)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        if let workers = plan.imageWorkers { settings.decodeQueue = DecodeQueue(maxConcurrent: workers, label: "webimage.bulk.images") }
        settings.inFlight = plan.concurrency + 2 * (plan.imageWorkers ?? cores)
        let job = DatasetJob(settings: settings, reader: reader, fetcher: fetcher,
                             processor: SampleProcessor(settings: plan.image),
                             output: ShardOutput(directory: directory, layout: plan.layout, naming: naming,
                                                 writesJSONLines: plan.writesJSONLines,
                                                 imageExtension: plan.image.format.rawValue, s3: s3),
                             doneShards: doneShards)
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
            Terminal.writeError("webimage: reading \(plan.file) stopped: \(error)\n")
            throw ExitCode.failure
        case .success(let summary):
            print(Self.summaryLine(summary, seconds: Double(start.duration(to: .now).milliseconds) / 1000))
            if summary.samples > 0 && summary.successes == 0 {
                Terminal.writeError("webimage: not one of the \(summary.samples) samples succeeded; the first failed with: "
                    + "\(summary.firstFailure ?? "?") (each sample's error is in its shard's metadata)\n")
                if plan.failsWhenNothingSucceeds { throw ExitCode.failure }
            }
            if !writeErrors.isEmpty { throw ExitCode.failure }
        }
    }

    /// How a job of `plan` gets its samples over `downloader`: through the host gate, with
    /// the job's retries and `X-Robots-Tag` directives.
    static func sampleFetcher(for plan: DatasetPlan, downloader: ImageDownloader) -> SampleFetcher {
        let gate = HostGate(limit: plan.perHostConcurrency, ratePerSecond: plan.perHostRate)
        var network = HostGatedFetcher(downloader: downloader, gate: gate,
                                       robots: RobotsTag(disallowed: plan.directives, token: plan.userAgentToken),
                                       retries: plan.retries)
        network.ignoresCertificates = plan.ignoresCertificates
        var fetcher = SampleFetcher(network: network)
        fetcher.allowsFileURLs = plan.allowsFileURLs
        fetcher.fileURLSetting = plan.spelling("allow_file_urls")
        fetcher.maxBytes = downloader.config.maxResponseBytes
        return fetcher
    }

    /// The downloader of a dataset job: every final status handed over (``HostGatedFetcher``
    /// reads them), retries done by the job, and every host name looked up through a
    /// ``CachingHostResolver`` (over `resolver`, the system's but in tests) whose answer
    /// the connection then uses. A sample's first hop is checked on the sample's task (the
    /// downloader's `async` fetch), and any hop to a name the cache remembers on the thread
    /// it is on, so a sample starts no task of its own for the address check.
    static func downloaderConfig(
        for plan: DatasetPlan, resolver: any HostResolving = SystemHostResolver()
    ) -> DownloaderConfig {
        var config = DownloaderConfig.default
        config.maxConcurrentDownloads = plan.concurrency
        config.downloadTimeout = plan.timeout
        config.acceptableStatusCodes = SampleFetcher.acceptedStatuses
        config.retryPolicy = .none
        for header in plan.headers {
            config.httpHeaders.remove(header.name)
            config.httpHeaders.add(name: header.name, value: header.value)
        }
        if let token = plan.userAgentToken?.trimmingCharacters(in: .whitespaces).lowercased(), !token.isEmpty {
            let agent = config.httpHeaders["User-Agent"] ?? DownloaderConfig.userAgent
            config.httpHeaders.remove("User-Agent")
            config.httpHeaders.add(name: "User-Agent", value: "\(agent) (compatible; \(token))")
        }
        let cache = CachingHostResolver(resolver)
        config.hopPolicy.addresses = plan.blockPrivateAddresses
            ? AddressPolicy(resolver: cache) : AddressPolicy(refusedKinds: [], resolver: cache)
        return config
    }

    /// Shard numbers with a `NNNNN_stats.json` in `directory`: img2dataset's own test of a
    /// finished shard.
    static func finishedShards(in directory: URL) -> Set<Int> {
        finishedShards(names: (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
    }

    /// Shard numbers of the `NNNNN_stats.json` among `names`.
    static func finishedShards(names: [String]) -> Set<Int> {
        Set(names.compactMap { name -> Int? in
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
