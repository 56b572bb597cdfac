import ArgumentParser
import Foundation
import WebImage

extension FetchCommand {
    /// `fetch --file LIST --out DIR` with img2dataset's flags: a ``DatasetJob`` writing
    /// shards into `--out` (``DatasetRunner``).
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
        var plan = DatasetPlan(file: file, out: out, format: format, formatName: formatName,
                               columns: try dataset.columns(), layout: try dataset.layout())
        plan.samplesPerShard = dataset.samplesPerShard ?? DatasetOptions.defaultSamplesPerShard
        plan.shardDigits = dataset.oomShardCount ?? ShardNaming.defaultShardDigits
        plan.ignoresCertificates = dataset.ignoreSSLCertificate
        plan.image = try dataset.imageSettings()
        plan.concurrency = pipelineOptions.concurrency ?? PipelineOptions.datasetConcurrency
        // img2dataset's default socket timeout.
        plan.timeout = timeout ?? Self.datasetTimeout
        plan.retries = pipelineOptions.retries ?? 0
        plan.headers = headers.compactMap(CommandPipeline.parseHeader)
        plan.perHostConcurrency = dataset.perHostConcurrency ?? DatasetOptions.defaultPerHostConcurrency
        plan.perHostRate = dataset.perHostRate
        plan.directives = dataset.directives
        plan.userAgentToken = dataset.userAgentToken
        plan.shardSelection = try bulk.shardSpec()
        plan.incremental = bulk.resume ? .incremental : .rewrite
        plan.blockPrivateAddresses = pipelineOptions.blockPrivateAddresses
        plan.allowsFileURLs = dataset.allowFileURLs
        plan.failsWhenNothingSucceeds = true
        try await DatasetRunner(plan: plan).run()
    }
}
