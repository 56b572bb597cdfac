import Foundation
import WebImageCodecs

/// Tests/Fixtures/chromium-reference/reference.jsonl, written by scripts/chromium-reference.py:
/// headless Chromium's decode of each corpus file, reduced to at most 16×16 cells.
struct ChromiumReference: Sendable {
    /// One file Chromium decoded.
    struct Entry: Sendable, CustomStringConvertible {
        var path: String
        var width: Int
        var height: Int
        var cols: Int
        var rows: Int
        var rgba: [UInt8]
        var description: String { path }
    }

    /// The files Chromium decoded, in MANIFEST order.
    var entries: [Entry]
    /// The files Chromium failed to decode.
    var failures: [String]

    static let url = Corpus.packageRoot.appendingPathComponent("Tests/Fixtures/chromium-reference/reference.jsonl")

    static func load() throws -> ChromiumReference {
        let text = try String(contentsOf: url, encoding: .utf8)
        var entries: [Entry] = [], failures: [String] = []
        for line in text.split(separator: "\n").dropFirst() {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let path = object["path"] as? String else { continue }
            guard let width = object["width"] as? Int, let height = object["height"] as? Int,
                  let cols = object["cols"] as? Int, let rows = object["rows"] as? Int,
                  let encoded = object["rgba"] as? String, let rgba = Data(base64Encoded: encoded) else {
                failures.append(path)
                continue
            }
            entries.append(Entry(path: path, width: width, height: height, cols: cols, rows: rows, rgba: [UInt8](rgba)))
        }
        return ChromiumReference(entries: entries, failures: failures)
    }

    /// `pixels` reduced as the script reduces Chromium's: cell (i, j) averages the pixels with
    /// `x * cols / width == i` and `y * rows / height == j`, premultiplied (what a canvas
    /// stores, so the noise of unpremultiplying nearly transparent pixels drops out),
    /// rounded by `(2n + d) / 2d`.
    static func reduce(_ pixels: PixelBuffer, cols: Int, rows: Int) -> [UInt8] {
        let w = pixels.width, h = pixels.height
        var sums = [Int](repeating: 0, count: cols * rows * 5)
        let cellX = (0..<w).map { $0 * cols / w }
        pixels.bytes.withUnsafeBufferPointer { p in
            for y in 0..<h {
                let cy = y * rows / h * cols
                for x in 0..<w {
                    let i = (y * w + x) * 4, c = (cy + cellX[x]) * 5, a = Int(p[i + 3])
                    for k in 0..<3 { sums[c + k] += (2 * Int(p[i + k]) * a + 255) / 510 }
                    sums[c + 3] += a
                    sums[c + 4] += 1
                }
            }
        }
        var out = [UInt8](repeating: 0, count: cols * rows * 4)
        for c in 0..<(cols * rows) {
            let n = max(1, sums[c * 5 + 4])
            for k in 0..<4 { out[c * 4 + k] = UInt8((2 * sums[c * 5 + k] + n) / (2 * n)) }
        }
        return out
    }

    /// Mean and largest absolute difference over all channels of all cells.
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> (mean: Double, max: Int) {
        guard a.count == b.count, !a.isEmpty else { return (.infinity, .max) }
        var total = 0, largest = 0
        for (x, y) in zip(a, b) {
            let d = abs(Int(x) - Int(y))
            total += d
            largest = max(largest, d)
        }
        return (Double(total) / Double(a.count), largest)
    }
}
