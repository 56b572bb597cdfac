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

    /// Counts a finished URL.
    func record(_ record: BulkRecord) {
        let line = state.withLock { s -> String? in
            s.done += 1
            if let error = record.error {
                s.failed += 1
                s.failuresByName[error.code.name, default: 0] += 1
            } else if record.duplicateOf == nil {
                s.bytes += record.bytes
            }
            return redraw(&s)
        }
        if let line { Terminal.writeError(line) }
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
            text += "; failed \(s.failed): " + s.failuresByName.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
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
        if s.isListComplete, rate > 0 {
            let eta = Double(max(0, s.read - s.skipped - s.done)) / rate
            line += String(format: "  ETA %d:%02d", Int(eta) / 60, Int(eta) % 60)
        }
        return line
    }
}
