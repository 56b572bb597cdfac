import Foundation

/// The one JSON object `webimage-bench` prints on stdout.
struct BenchReport: Encodable {
    var mode: String
    var ok: Bool
    /// Seconds per measured iteration.
    var samples: [Double] = []
    /// Operations each sample covers (files decoded, dictionary gets, reads).
    var opsPerSample: Int = 0
    /// Source pixels one iteration decoded (for MP/s).
    var pixelsPerSample: Int = 0
    /// The process's peak resident set (VmHWM), in bytes.
    var peakRSSBytes: Int = 0
    /// Cores the process kept busy over the measured iterations (user + system CPU ÷
    /// wall), for the modes whose rows print it.
    var coresBusy: Double?
    /// Set when the mode could not be measured, with the reason.
    var notMeasured: String?
    var error: ErrorInfo?

    struct ErrorInfo: Encodable {
        var code: Int
        var name: String
        var message: String
    }

    func printJSON() {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self), let text = String(data: data, encoding: .utf8) else {
            print(#"{"ok":false,"notMeasured":"could not encode the report"}"#)
            return
        }
        print(text)
    }
}
