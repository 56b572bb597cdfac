#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The tool's two output streams and what it knows about the terminal behind them.
///
/// Results (JSON lines, images drawn by `show`) go to stdout whatever it is, like `cat`.
/// Decoration (progress bars, tables) goes to stderr, and only when stderr is a terminal
/// and `--quiet` was not given: scripts reading stderr never see control sequences.
/// stdout is written with `print`, so drawings and JSON lines stay in order.
enum Terminal {
    /// Writes `text` to stdout and flushes, so a frame of an animation shows at once.
    static func write(_ text: String) {
        print(text, terminator: "")
        fflush(nil)
    }

    /// Writes `text` to stderr (unbuffered).
    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Whether stderr is a terminal, where progress bars and tables may be drawn.
    static var isErrorTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// The width in columns to draw images at: `COLUMNS` when set to a positive number,
    /// else the window size of whichever of stdout, stderr or stdin is a terminal,
    /// else 80; never more than ``TerminalImage/maxColumns``.
    static var columns: Int {
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let n = Int(text), n > 0 {
            return min(n, TerminalImage.maxColumns)
        }
        for fd in [STDOUT_FILENO, STDERR_FILENO, STDIN_FILENO] {
            var size = winsize()
            if ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return min(Int(size.ws_col), TerminalImage.maxColumns) }
        }
        return 80
    }
}
