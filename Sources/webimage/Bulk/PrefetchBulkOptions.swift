import ArgumentParser
import Foundation
import WebImage

/// The bulk-job flags `prefetch` shares with `fetch` (its `--file` is its own): with any
/// of them, `prefetch` streams the list through a ``BulkJob`` that stores to the disk
/// cache only, at low priority, and writes no files.
struct PrefetchBulkOptions: ParsableArguments {
    @Flag(help: "With --json, print each line as its URL finishes instead of in input order.")
    var unordered = false

    @Option(help: "Append one JSON line per finished URL to FILE.")
    var manifest: String?

    @Flag(help: "Skip URLs that --manifest already lists as ok.")
    var resume = false

    @Option(parsing: .unconditional, help: "I/N: only the URLs whose index mod N is I (0-based; N from 1 to 1000000).")
    var shard: String?

    var isActive: Bool { unordered || manifest != nil || resume || shard != nil }

    func validate() throws { _ = try bulkOptions(file: nil) }

    /// The same flags as `fetch`'s ``BulkOptions``, checked the same way.
    func bulkOptions(file: String?) throws -> BulkOptions {
        var arguments: [String] = []
        if let file { arguments += ["--file", file] }
        if unordered { arguments.append("--unordered") }
        if let manifest { arguments += ["--manifest", manifest] }
        if resume { arguments.append("--resume") }
        if let shard { arguments += ["--shard", shard] }
        do {
            return try BulkOptions.parse(arguments)
        } catch {
            throw ValidationError(BulkOptions.message(for: error))
        }
    }
}

extension PrefetchCommand {
    /// `prefetch` with a bulk flag: the list streamed through a ``BulkJob`` into the disk cache.
    func runBulk(pipeline: CommandPipeline) async throws {
        var context = WebImageContext()
        context.storeCacheType = .disk
        try await BulkJob.launch(
            try bulk.bulkOptions(file: file), urls: urls, out: nil, pipeline: pipeline,
            options: [.waitStoreCache, .lowPriority, .avoidMemoryCache], context: context,
            concurrency: pipelineOptions.concurrency ?? 3, sequential: false, json: json, output: output)
    }
}
