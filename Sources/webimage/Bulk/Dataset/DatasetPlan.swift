import Foundation

/// Everything one dataset job is asked to do, whichever command line asked: `fetch --file`
/// with its dashed flags (``DatasetOptions``) or `img2dataset` with img2dataset's own
/// (``Img2DatasetOptions``). ``DatasetRunner`` runs it.
struct DatasetPlan: Sendable {
    /// img2dataset's `incremental_mode`, plus `fetch`'s own default.
    enum Incremental: String, Sendable {
        /// Skip the shards that have their `NNNNN_stats.json` (`fetch --resume`).
        case incremental
        /// Remove the output folder and start again.
        case overwrite
        /// Number the new shards after the highest one already there.
        case extend
        /// Write every shard, replacing what is there (`fetch` without `--resume`).
        case rewrite
    }

    var file: String
    var out: String
    var format: InputFormat
    /// The format as given: a folder's files end in `.<formatName>`.
    var formatName: String
    var columns: InputColumns
    var layout: ShardOutput.Layout
    var samplesPerShard = DatasetOptions.defaultSamplesPerShard
    /// img2dataset's `oom_shard_count`: the shard number's least width.
    var shardDigits = ShardNaming.defaultShardDigits
    var image = SampleProcessor.Settings()
    /// Transfers at once.
    var concurrency = 64
    /// Images decoded and encoded at once; `nil` for one per core.
    var imageWorkers: Int?
    /// Seconds for one transfer.
    var timeout: Double = 10
    var retries = 0
    var headers: [(name: String, value: String)] = []
    var perHostConcurrency = DatasetOptions.defaultPerHostConcurrency
    var perHostRate: Double?
    var directives = RobotsTag.defaultDirectives
    var userAgentToken: String?
    var shardSelection: (index: Int, count: Int)?
    var incremental = Incremental.rewrite
    var blockPrivateAddresses = false
    /// Accept any TLS certificate (img2dataset's `--ignore_ssl_certificate`).
    var ignoresCertificates = false
    /// `--allow-file-urls`: rows may name local files. Off by default for `fetch --file`, on
    /// for `webimage img2dataset` (see ``SampleFetcher``).
    var allowsFileURLs = false
    /// How messages spell an option: the command's own way (a message that says how to fix
    /// something names the setting as the user would type it).
    var spelling = OptionSpelling.fetch

    /// `fetch --file`'s dashed flags or img2dataset's underscored ones.
    enum OptionSpelling: Sendable {
        case fetch, img2dataset

        /// `name` (img2dataset's, with underscores) with `value`, as this command takes it.
        func callAsFunction(_ name: String, _ value: String? = nil) -> String {
            switch self {
            case .fetch: "--" + name.replacingOccurrences(of: "_", with: "-") + (value.map { " " + $0 } ?? "")
            case .img2dataset: "--" + name + (value.map { "=" + $0 } ?? "")
            }
        }

        /// The command whose `--help` lists these options.
        var helpCommand: String { self == .fetch ? "webimage fetch --help" : "webimage img2dataset --help" }
    }
    /// Exit 1 when not one sample succeeded (`fetch --file`); `webimage img2dataset` exits 0
    /// as img2dataset does, after the same line on stderr.
    var failsWhenNothingSucceeds = false
    /// Each shard's metadata also as `NNNNN.jsonl` (beside `NNNNN.parquet`): `fetch --file`
    /// writes both; `webimage img2dataset` only with `--jsonl_metadata`, as img2dataset writes
    /// parquet only.
    var writesJSONLines = true
}
