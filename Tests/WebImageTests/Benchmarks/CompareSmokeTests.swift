import Foundation
import Testing

/// Keeps `Benchmarks/compare` from rotting: the comparison driver runs on its tiny smoke
/// corpus with our side only (no virtual environment, nginx or release build needed) and
/// must still print the whole table.
@Suite("Benchmarks/compare --smoke", .timeLimit(.minutes(1)))
struct CompareSmokeTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `python3 Benchmarks/compare --smoke --no-peers --stdlib-corpus` (the corpus
    /// generator's standard-library path, whatever else is installed); returns status, stdout, stderr.
    static func runSmoke() throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "Benchmarks/compare", "--smoke", "--no-peers", "--stdlib-corpus"]
        process.currentDirectoryURL = packageRoot
        let out = Pipe()
        // stderr goes to a file, so only one pipe needs draining while the driver runs.
        let errURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("compare-smoke-\(UUID().uuidString).err")
        guard FileManager.default.createFile(atPath: errURL.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        defer { try? FileManager.default.removeItem(at: errURL) }
        let errHandle = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = errHandle
        try process.run()
        let outText = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try errHandle.close()
        let errText = String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        return (process.terminationStatus, outText, errText)
    }

    @Test("prints every row of the table, each with a goal and a result")
    func tableIsComplete() throws {
        let (status, out, err) = try Self.runSmoke()
        #expect(status == 0, "compare --smoke failed: \(err)")
        #expect(err.contains("smoke: ok"), "\(err)")

        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.first == "| work | ours | peer | ratio | goal | result |")
        let rows = lines.dropFirst(2).filter { $0.hasPrefix("| ") }
        #expect(rows.count == 95, "\(rows.map { $0.prefix(70) }.joined(separator: "\n"))")
        for row in rows {
            let cells = row.split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            try #require(cells.count == 8, "\(row)")
            let result = cells[6]
            // "not comparable: …": a peer that kept under 1.5 of 2 cores busy (the network and bulk rows).
            #expect(["pass", "FAIL", "info"].contains(result) || result.hasPrefix("not measured: ")
                        || result.hasPrefix("not comparable: "), "\(row)")
            #expect(!cells[5].isEmpty, "a row without a goal: \(row)")
        }
        for work in ["full JPEG decode", "thumbnail", "PNG decode", "animated GIF decode", "WebP decode",
                     "thumbnail-baseline", "memory cache get", "memory cache set", "disk cache hit", "manager load",
                     "from local nginx", "transfer only", "ImageManager", "caches on tmpfs", "keeping every image", "AsyncHTTPClient alone", "100 concurrent loads of one URL",
                     "Lanczos3 resample", "peak RSS", "webdataset shards of 1000, border 256", "4032×3024 JPEGs",
                     "mixed set", "cached result", "LAION-like parquet list",
                     "thumbnail PSNR vs full-decode Lanczos reference", "thumbnail CPU per image",
                     "against libvips' thumbnail", "against libvips doing imgproxy's steps",
                     "WEBIMAGE_SHRINK_ON_LOAD=imgproxy", "first decode in a fresh process", "OpenTelemetry on",
                     "baseline JPEG decode at 1/8", "baseline JPEG decode at 1/4"] {
            #expect(rows.contains { $0.contains(work) }, "no row for \(work)")
        }
    }
}
