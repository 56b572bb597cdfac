import Foundation
import Logging
import Synchronization

/// A swift-log handler that keeps every message it gets, for tests that check what a
/// component logs (and at which level).
final class LogCapture: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        /// The entry's own metadata, values as text.
        var metadata: [String: String] = [:]
    }
    private let entries = Mutex<[Entry]>([])

    /// Everything logged so far.
    var all: [Entry] { entries.withLock { $0 } }

    /// A logger writing here at `level` and above.
    func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "capture") { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.append(Entry(
                level: event.level, message: event.message.description,
                metadata: (event.metadata ?? [:]).mapValues { "\($0)" }))
        }
    }
}
