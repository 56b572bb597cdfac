import ArgumentParser
import Foundation
import WebImage

/// The bulk-job flags of `fetch` (shared/DESIGN.md, round 2): a URL list in, files and a
/// manifest out, resumable and shardable. Any of them turns `fetch` into a ``BulkJob``.
struct BulkOptions: ParsableArguments {
    @Option(help: "A file listing URLs, one per line (- for stdin); blank lines and # comments are skipped. Read as the job goes.")
    var file: String?

    @Flag(help: "With --json, print each line as its URL finishes instead of in input order (in order, a URL starts at most 4096 after the oldest unfinished one).")
    var unordered = false

    @Option(name: .customLong("out-layout"), parsing: .unconditional,
            help: "flat (every file in --out) or shards:N (N files per numbered folder, 1 to 10000000). Files are named by list index: 000000042.jpg, or 00004/000042000.jpg for shards:10000.")
    var outLayout: String?

    @Option(help: "How --out files are encoded: jpeg, png, webp or avif (default: the source's own format).")
    var format: String?

    @Option(parsing: .unconditional, help: "Quality of lossy --format output: 1 to 100 (default 90).")
    var quality: Int?

    @Option(help: "Append one JSON line per finished URL to FILE: index, url, ok, status, format, width, height, bytes, file, fileBytes, duplicateOf, ms, or error {code, name, message}.")
    var manifest: String?

    @Flag(help: "Skip URLs that --manifest already lists as ok; with img2dataset's flags, skip shards that have their _stats.json.")
    var resume = false

    @Flag(help: "Print each failed URL on stderr as it fails, one line each. Without it failures are only counted, by error name, on the progress line and in the summary.")
    var logFailures = false

    @Option(parsing: .unconditional, help: "I/N: only the URLs whose index mod N is I (0-based; N from 1 to 1000000); with img2dataset's flags, the shards whose number mod N is I.")
    var shard: String?

    /// `--quality`'s range.
    static let qualityRange = 1...100
    /// `--shard`'s range of N.
    static let shardCountRange = 1...1_000_000
    /// `--out-layout shards:N`'s range of N.
    static let filesPerFolderRange = 1...10_000_000
    /// The formats `--format` names; `avif` only where an encoder is built in.
    static let formats: [String: ImageFormat] = ["jpeg": .jpeg, "jpg": .jpeg, "png": .png, "webp": .webp, "avif": .avif]

    /// Whether any bulk flag was given, so `fetch` runs a ``BulkJob``.
    var isActive: Bool {
        file != nil || unordered || outLayout != nil || format != nil || quality != nil || manifest != nil
            || resume || shard != nil || logFailures
    }

    func validate() throws {
        if let quality { try NumericOption.check(quality, "--quality", in: Self.qualityRange, "a quality") }
        _ = try outputFormat()
        _ = try layout()
        _ = try shardSpec()
    }

    /// `--format` as an encodable format, or `nil` for the source's own.
    func outputFormat() throws -> ImageFormat? {
        guard let format else { return nil }
        guard let parsed = Self.formats[format.lowercased()] else {
            throw ValidationError("--format must be jpeg, png, webp or avif; got '\(format)'")
        }
        guard ImageCodersManager.shared.canEncode(to: parsed) else {
            throw ValidationError("--format \(format): this build has no \(parsed.rawValue) encoder; use jpeg, png or webp")
        }
        return parsed
    }

    /// `--out-layout`: files per folder, or `nil` for flat.
    func layout() throws -> Int? {
        guard let outLayout, outLayout != "flat" else { return nil }
        guard outLayout.hasPrefix("shards:"), let n = Int(outLayout.dropFirst("shards:".count)) else {
            throw ValidationError("--out-layout must be flat or shards:N; got '\(outLayout)'")
        }
        try NumericOption.check(n, "--out-layout shards:N", in: Self.filesPerFolderRange, "a number of files per folder")
        return n
    }

    /// `--shard I/N` as (I, N); `nil` for all URLs.
    func shardSpec() throws -> (index: Int, count: Int)? {
        guard let shard else { return nil }
        let parts = shard.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
            throw ValidationError("--shard takes I/N, e.g. 0/4; got '\(shard)'")
        }
        try NumericOption.check(n, "--shard N", in: Self.shardCountRange, "a number of shards")
        try NumericOption.check(i, "--shard I", in: 0...(n - 1), "a shard index")
        return (i, n)
    }
}
