import ArgumentParser
import Foundation
import WebImage

/// `webimage cache stats|clean|clear|path KEY`: inspect and trim the disk cache.
///
/// The cache is the one `fetch` uses: namespace `default` in `--cache-dir`, or in the
/// XDG cache directory. Exit status 0 on success, 1 when `path`'s key has no entry,
/// 2 for bad usage.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show, trim or empty the disk cache.",
        discussion: """
            stats       number of entries and bytes on disk
            clean       remove entries older than --max-age, then trim to half of --max-size
            clear       remove every entry
            path KEY    the file that holds KEY (exit 1 and nothing on stdout when it is not
                        cached; with --json, {"exists": false, "path": where it would be})
            """
    )

    @Argument(help: "stats, clean, clear or path.")
    var action: String

    @Argument(help: "The cache key (normally the URL), for path.")
    var key: String?

    @Option(name: .customLong("cache-dir"), help: "The directory holding the cache (default: the XDG cache directory).")
    var cacheDirectory: String?

    @Option(name: .customLong("max-age"), parsing: .unconditional, help: "For clean: seconds since last read after which entries go, up to 3155760000, 100 years (default one week; negative: never).")
    var maxAge: String?

    @Option(name: .customLong("max-size"), parsing: .unconditional, help: "For clean: bytes allowed, up to 1125899906842624, 1 PiB; over it the cache trims to half (default 0: no limit).")
    var maxSize: String?

    @Flag(help: "Print one JSON object.")
    var json = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard ["stats", "clean", "clear", "path"].contains(action) else { throw usage("unknown action '\(action)'") }
        if action == "path" && (key ?? "").isEmpty { throw usage("path needs a KEY") }
        if action != "path" && key != nil { throw usage("\(action) takes no KEY") }
        if let problem = maxAge.flatMap(NumericOption.maxAgeProblem) { throw usage(problem) }
        if let problem = maxSize.flatMap(NumericOption.maxSizeProblem) { throw usage(problem) }
    }

    func run() async throws {
        output.bootstrapLogging()
        let directory = DiskCache.directory(
            namespace: "default", in: cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) })
        // Opening a cache applies its limits, so this one has none: it only looks.
        let cache = DiskCache(directory: directory, config: DiskCache.Config(maxDiskAge: -1))
        switch action {
        case "path":
            let key = key ?? ""
            let path = cache.cachePath(forKey: key)
            let exists = await cache.containsData(forKey: key)
            guard exists || json else {
                // A path on stdout would read as an answer; say what is missing instead.
                FileHandle.standardError.write(Data("webimage: \(key.redactedURLForLog) is not in the cache \(directory.path)\n".utf8))
                throw ExitCode.failure
            }
            emit(["key": key, "path": path, "exists": exists], text: path)
            if !exists { throw ExitCode.failure }
        case "clean", "clear":
            let (count, bytes) = (await cache.totalCount(), await cache.totalSize())
            if action == "clean" {
                let limits = DiskCache.Config(maxDiskAge: maxAge.flatMap(TimeInterval.init) ?? 7 * 24 * 60 * 60,
                                              maxDiskSize: maxSize.flatMap(Int.init) ?? 0)
                await DiskCache(directory: directory, config: limits).removeExpiredData()
            } else {
                await cache.removeAll()
            }
            let (left, leftBytes) = (await cache.totalCount(), await cache.totalSize())
            emit(["path": directory.path, "removedCount": count - left, "removedBytes": bytes - leftBytes,
                  "count": left, "bytes": leftBytes],
                 text: "removed \(count - left) entries (\(bytes - leftBytes) bytes); \(left) entries (\(leftBytes) bytes) left")
        default:
            let (count, bytes) = (await cache.totalCount(), await cache.totalSize())
            emit(["path": directory.path, "count": count, "bytes": bytes],
                 text: "path  \(directory.path)\ncount \(count)\nbytes \(bytes)")
        }
    }

    private func emit(_ object: [String: any Sendable], text: String) {
        guard json else {
            print(text)
            return
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        print(String(decoding: data, as: UTF8.self))
    }

    private func usage(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("Error: \(message)\nUsage: webimage cache stats|clean|clear|path KEY [--cache-dir DIR] [--max-age SECONDS] [--max-size BYTES] [--json]\n".utf8))
        return ExitCode(2)
    }
}
