import ArgumentParser
import WebImage

/// The `webimage` command-line tool: fetch, decode, prefetch, cache, show, demo.
@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Load, cache and decode images (JPEG, PNG/APNG, GIF, WebP) from the command line.",
        subcommands: [CacheCommand.self]
    )
}
