import ArgumentParser
import Logging

/// `--quiet` and `--verbose`, shared by every subcommand.
///
/// Logs go through swift-log to stderr: warnings and worse by default, everything from
/// debug up with `--verbose`, nothing with `--quiet`.
struct OutputOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Draw no progress bars or tables and log nothing (results and errors still print).")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Log debug messages to stderr.")
    var verbose = false

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose exclude each other") }
    }

    /// Whether decoration (progress bars, tables) may be drawn on stderr.
    var showsDecoration: Bool { !quiet && Terminal.isErrorTerminal }

    /// Sets up logging for this process; call once, at the start of `run()`.
    func bootstrapLogging() {
        let level: Logger.Level = quiet ? .critical : (verbose ? .debug : .warning)
        LoggingSystem.bootstrap { label in
            var handler = DeferredMetadataLogHandler(base: StreamLogHandler.standardError(label: label))
            handler.logLevel = level
            return handler
        }
    }

    /// A progress bar on stderr, or one that draws nothing when decoration is off.
    func progressBar(total: Int, label: String) -> ProgressBar {
        ProgressBar(total: total, label: label, isEnabled: showsDecoration)
    }
}
