import Foundation
import WebImage

/// The demo's printed report: headed sections, aligned rows, and checks marked ✓ or ✗.
///
/// The report is the demo's result, so it goes to stdout like `fetch`'s lines do; the
/// progress bar alone goes to stderr.
final class DemoReport {
    private(set) var failedChecks: [String] = []

    /// A section heading.
    func section(_ title: String) {
        Terminal.write("\n\u{25B6} \(title)\n")
    }

    /// A plain line of the section.
    func line(_ text: String) {
        Terminal.write("  \(text)\n")
    }

    /// A fact the demo promises: `✓ text` when it holds, `✗ text` otherwise (and the
    /// demo then exits 1).
    func check(_ holds: Bool, _ text: String) {
        Terminal.write("  \(holds ? "✓" : "✗") \(text)\n")
        if !holds { failedChecks.append(text) }
    }

    /// One row per load: name, image, bytes, where it came from, time.
    func table(_ rows: [(name: String, report: LoadReport)]) {
        let width = rows.map(\.name.count).max() ?? 0
        for (name, report) in rows {
            let padded = name.padding(toLength: width, withPad: " ", startingAt: 0)
            switch report.result {
            case .success(let loaded):
                let image = loaded.image.map { image in
                    "\(image.format.rawValue) \(image.width)x\(image.height)" + (image.isAnimated ? " \(image.frameCount)f" : "")
                } ?? "-"
                line("\(padded)  \(image.padding(toLength: 18, withPad: " ", startingAt: 0))"
                     + (loaded.cacheType == .memory ? "      -  " : "\(String(report.bytes).leftPadded(to: 7)) B  ")
                     + "\(LoadReport.source(loaded.cacheType).padding(toLength: 12, withPad: " ", startingAt: 0))"
                     + String(format: "%7.1f ms", report.milliseconds))
            case .failure(let error):
                line("\(padded)  failed: \(error.description)")
            }
        }
    }
}

extension String {
    /// The string right-aligned in `width` columns.
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
