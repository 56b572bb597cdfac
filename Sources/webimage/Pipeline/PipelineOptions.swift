import ArgumentParser
import Foundation

/// `--cache-dir` and `--concurrency`, shared by `fetch` and `prefetch`.
struct PipelineOptions: ParsableArguments {
    @Option(name: .customLong("cache-dir"), help: "The directory holding the disk cache (default: the XDG cache directory).")
    var cacheDirectory: String?

    @Option(parsing: .unconditional, help: "Transfers at once: 1 to 1024 (default: fetch 6, prefetch 3).")
    var concurrency: Int?

    func validate() throws {
        if let concurrency {
            try NumericOption.check(concurrency, "--concurrency", in: NumericOption.concurrency, "a number of transfers")
        }
    }

    /// The pipeline settings these options give.
    var settings: CommandPipeline.Settings {
        var settings = CommandPipeline.Settings()
        settings.cacheDirectory = cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        settings.concurrency = concurrency
        return settings
    }
}
