import ArgumentParser
import Foundation
import WebImage

/// The `webimage` command-line tool: fetch, decode, prefetch, cache, show, demo.
///
/// Exit status: 0 when every input succeeded, 1 when any failed, 2 for bad usage.
@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Load, cache and decode images (\(decodedFormats)) from the command line; serve them as imgproxy does; build img2dataset datasets.",
        version: version,
        subcommands: [
            FetchCommand.self,
            DecodeCommand.self,
            InfoCommand.self,
            PrefetchCommand.self,
            CacheCommand.self,
            ShowCommand.self,
            DemoCommand.self,
            ServeCommand.self,
            Img2DatasetCommand.self,
        ]
    )

    /// The tool's version (`webimage --version`).
    static let version = "0.4.0"
    /// The formats every build decodes, as `--help` names them (a test decodes a corpus
    /// file of each).
    static let decodedFormats = "JPEG, PNG/APNG, GIF, WebP, AVIF, HEIC/HEIF, JPEG XL"

    /// Parses and runs, mapping argument errors to exit status 2 as the contract says
    /// (swift-argument-parser's own default is 64).
    static func main() async {
        do {
            // Called as `img2dataset` (a link to this tool), it is `webimage img2dataset`: a user
            // swaps the program and keeps the command line.
            var arguments = Array(CommandLine.arguments.dropFirst())
            if let name = CommandLine.arguments.first, (name as NSString).lastPathComponent == "img2dataset" {
                arguments.insert("img2dataset", at: 0)
            }
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
