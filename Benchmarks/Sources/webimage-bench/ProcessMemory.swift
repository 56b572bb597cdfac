import Foundation

/// Reads this process's memory figures from `/proc/self/status` (Linux).
enum ProcessMemory {
    /// Peak resident set size (`VmHWM`) in bytes, or 0 where `/proc` is missing.
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return kilobytes * 1024
        }
        return 0
    }
}
