import Foundation
import Synchronization
import WebImage

/// A bulk job's counts: the progress line on stderr while it runs (only on a terminal,
/// at most ten redraws a second) and the summary at the end.
///
/// `done/total  images/s  MB/s  failed  ETA`: the total is known once the list has been
/// read to the end; until then the line shows how many URLs were read.
final class BulkProgress: Sendable {
    private struct State {
        var done = 0
        var failed = 0
        var skipped = 0
        var bytes = 0
        var read = 0
        var isListComplete = false
        var failuresByName: [String: Int] = [:]
        var lastDraw: ContinuousClock.Instant?
        var hasDrawn = false
    }

    private let isEnabled: Bool
    private let start = ContinuousClock.now
    private let state = Mutex(State())

    init(isEnabled: Bool) {
        self.isEnabled = isEnabled
    }

    /// Counts a finished URL; with `logFailure`, a failure is also printed on a line of its
    /// own, above the progress line (cleared first, then drawn again below it).
    func record(_ record: BulkRecord, logFailure: Bool = false) {
        // stderr is written inside the lock so a failure line and a redraw never interleave.
        state.withLock { s in
            s.done += 1
            var text = ""
            if let error = record.error {
                s.failed += 1
                s.failuresByName[error.code.name, default: 0] += 1
                if logFailure {
                    if s.hasDrawn && isEnabled { text += "\r\u{1B}[2K" }
                    text += CommandError.line(error, subject: record.url)
                    s.lastDraw = nil
                }
            } else if record.duplicateOf == nil {
                s.bytes += record.bytes
            }
            if let line = redraw(&s) { text += line }
            if !text.isEmpty { Terminal.writeError(text) }
        }
    }

    /// Counts a URL `--resume` skipped.
    func skip() { state.withLock { $0.skipped += 1 } }

    /// The number of URLs read from the list so far, and whether that is all of them.
    func listRead(_ count: Int, isComplete: Bool) {
        state.withLock {
            $0.read = count
            $0.isListComplete = isComplete
        }
    }

    var failedCount: Int { state.withLock { $0.failed } }

    /// Clears the progress line and returns the summary:
    /// `fetched 1998 of 2000 URLs in 14.2 s (140.7 images/s, 3.1 MB/s); failed 2: invalidDownloadStatusCode 2`.
    func finish() -> String {
        let s = state.withLock { s -> State in
            if s.hasDrawn && isEnabled { Terminal.writeError("\r\u{1B}[2K") }
            s.hasDrawn = false
            s.lastDraw = .now + .seconds(1_000_000)
            return s
        }
        let seconds = max(1e-9, Double(start.duration(to: .now).milliseconds) / 1000)
        var text = "fetched \(s.done - s.failed) of \(s.done) URLs in " + String(format: "%.1f s (%.1f images/s, %.1f MB/s)",
            seconds, Double(s.done - s.failed) / seconds, Double(s.bytes) / 1e6 / seconds)
        if s.skipped > 0 { text += "; skipped \(s.skipped) already in the manifest" }
        if s.failed > 0 {
            text += "; failed \(s.failed): " + Self.countsByName(s.failuresByName)
        }
        return text
    }

    private func redraw(_ s: inout State) -> String? {
        guard isEnabled else { return nil }
        let now = ContinuousClock.now
        if let last = s.lastDraw, last.duration(to: now) < .milliseconds(100) { return nil }
        s.lastDraw = now
        s.hasDrawn = true
        let seconds = max(1e-9, Double(start.duration(to: now).milliseconds) / 1000)
        let rate = Double(s.done) / seconds
        var line = "\r\u{1B}[2Kfetch \(s.done)/" + (s.isListComplete ? "\(s.read)" : "\(s.read)+")
        line += String(format: "  %.1f images/s  %.1f MB/s  %d failed", rate, Double(s.bytes) / 1e6 / seconds, s.failed)
        if s.failed > 0 { line += " (" + Self.countsByName(s.failuresByName, limit: 3) + ")" }
        if s.isListComplete, rate > 0 {
            let eta = Double(max(0, s.read - s.skipped - s.done)) / rate
            line += String(format: "  ETA %d:%02d", Int(eta) / 60, Int(eta) % 60)
        }
        return line
    }

    /// `invalidDownloadStatusCode 9, timedOut 1`: the most frequent first, at most `limit`
    /// names (then `…`).
    static func countsByName(_ counts: [String: Int], limit: Int = .max) -> String {
        let sorted = counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
        let shown = sorted.prefix(limit).map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return sorted.count > limit ? shown + ", …" : shown
    }
}
