import ArgumentParser
import Foundation

/// `--cache-dir`, `--concurrency` and the network flags (`--retries`, `--http-cache`,
/// `--block-private-addresses`), shared by `fetch` and `prefetch`.
struct PipelineOptions: ParsableArguments {
    @Option(name: .customLong("cache-dir"), help: "The directory holding the disk cache (default: the XDG cache directory).")
    var cacheDirectory: String?

    @Option(parsing: .unconditional, help: "Transfers at once: 1 to 1024 (default: fetch 6, prefetch 3; with img2dataset's flags \(Self.datasetConcurrency), as its thread_count).")
    var concurrency: Int?

    @Option(parsing: .unconditional,
            help: "Retry transient failures (timeouts, lost connections, 408, 429, 500, 502-504) up to N times: 0 to 99 (default 0), with exponential backoff and Retry-After.")
    var retries: Int?

    @Flag(name: .customLong("http-cache"),
          help: "Honour Cache-Control/Expires: fresh cached images make no request, stale ones are revalidated (no-store is always honoured).")
    var httpCache = false

    @Flag(name: .customLong("block-private-addresses"),
          help: "Refuse URLs and redirects to loopback, private, link-local, multicast or unspecified addresses (forbiddenAddress 2011); file: is not loaded either.")
    var blockPrivateAddresses = false

    /// `--concurrency` when img2dataset's flags are given and it is not.
    static let datasetConcurrency = 64

    /// `--retries`' range.
    static let retriesRange = 0...99

    func validate() throws {
        if let concurrency {
            try NumericOption.check(concurrency, "--concurrency", in: NumericOption.concurrency, "a number of transfers")
        }
        if let retries { try NumericOption.check(retries, "--retries", in: Self.retriesRange, "a number of retries") }
    }

    /// The pipeline settings these options give.
    var settings: CommandPipeline.Settings {
        var settings = CommandPipeline.Settings()
        settings.cacheDirectory = cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        settings.concurrency = concurrency
        settings.retries = retries
        settings.respectsHTTPCaching = httpCache
        settings.blocksPrivateAddresses = blockPrivateAddresses
        return settings
    }
}
