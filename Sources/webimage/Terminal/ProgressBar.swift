import Synchronization

/// A one-line progress bar on stderr: `label [#####-----] 5/10`.
///
/// Thread-safe: loads report from their callback queues. Redraws in place with a
/// carriage return; ``finish()`` clears the line it drew. Draws nothing when not enabled
/// (stderr is not a terminal, or `--quiet`).
final class ProgressBar: Sendable {
    private struct State {
        var done = 0
        var detail = ""
        var isFinished = false
    }

    private let total: Int
    private let label: String
    private let isEnabled: Bool
    private let width = 30
    private let state = Mutex(State())

    init(total: Int, label: String, isEnabled: Bool) {
        self.total = max(1, total)
        self.label = label
        self.isEnabled = isEnabled
    }

    /// Counts one more item done and redraws; `detail` (e.g. the URL) shows after the count.
    func advance(detail: String = "") {
        let line = state.withLock { s -> String? in
            guard !s.isFinished else { return nil }
            s.done = min(total, s.done + 1)
            s.detail = detail
            return render(s)
        }
        if isEnabled, let line { Terminal.writeError(line) }
    }

    /// Clears the bar's line; later calls draw nothing.
    func finish() {
        let hasDrawn = state.withLock { s in
            defer { s.isFinished = true }
            return !s.isFinished && s.done > 0
        }
        if isEnabled && hasDrawn { Terminal.writeError("\r\u{1B}[2K") }
    }

    private func render(_ s: State) -> String {
        let filled = width * s.done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let detail = s.detail.count > 40 ? "…" + s.detail.suffix(39) : s.detail
        return "\r\u{1B}[2K\(label) [\(bar)] \(s.done)/\(total) \(detail)"
    }
}
