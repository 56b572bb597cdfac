import ArgumentParser
import Foundation
import WebImage
import WebImageTestOrigin

/// `webimage demo`: the library's main job on a local origin, with no network and no setup.
///
/// Starts ``TestOrigin`` on 127.0.0.1 serving ``DemoGallery``, loads it through
/// `ImageManager`s over a temporary disk cache and reports what happened: cold load
/// (network), warm load (memory), a fresh manager (disk), coalescing, the failed-URL
/// block list, progressive partial images, a thumbnail, and one image drawn in the
/// terminal. Removes the cache afterwards. Exit status 0 when every check held, 1 otherwise.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the main job on a bundled local origin (no network needed) and report.",
        discussion: """
            The report goes to stdout; a progress bar shows on stderr when it is a terminal. \
            Each fact the demo promises is marked ✓ (or ✗, and the exit status is then 1).
            """
    )

    @Option(help: "Columns to draw the closing image at (default: fit the terminal, at most 64).")
    var width: Int?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let width { try NumericOption.check(width, "--width", in: NumericOption.columns, "a number of columns") }
    }

    func run() async throws {
        output.bootstrapLogging()
        let start = ContinuousClock.now
        let assets = try DemoGallery.make()
        let origin = try await TestOrigin.start()
        for asset in assets + [DemoGallery.coalescingAsset(from: assets)] { origin.route(asset.path, asset.response) }
        let cacheDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-demo-\(UUID().uuidString)", isDirectory: true)
        let report = DemoReport()
        let demo = DemoRun(origin: origin, assets: assets, cacheDirectory: cacheDirectory, report: report, output: output)
        let drawn = await demo.runAll()
        await origin.shutdown()
        let cacheRemoved = await Self.remove(cacheDirectory)

        report.section("The photo, drawn in the terminal")
        if let drawn {
            let columns = width ?? min(Terminal.columns, 64)
            let size = TerminalImage.drawSize(for: PixelSize(width: drawn.width, height: drawn.height),
                                              columns: columns, fitOnly: false)
            Terminal.write(TerminalImage().render(drawn.pixels.resampled(width: size.width, height: size.height)))
        }
        report.section("Done")
        report.check(cacheRemoved, "temporary cache removed (\(cacheDirectory.path))")
        report.line("origin: \(origin.totalRequests) requests, \(origin.bytesSent) bytes sent; "
                    + String(format: "total %.2f s", start.duration(to: .now).milliseconds / 1000))
        if !report.failedChecks.isEmpty {
            Terminal.writeError("webimage demo: \(report.failedChecks.count) check(s) failed: "
                                + report.failedChecks.joined(separator: "; ") + "\n")
            throw ExitCode.failure
        }
    }

    /// Removes the demo's cache; tries again briefly in case a cache's I/O queue was
    /// still finishing a write (trimming, access dates) when the first removal ran.
    static func remove(_ directory: URL) async -> Bool {
        for _ in 0..<20 {
            try? FileManager.default.removeItem(at: directory)
            if !FileManager.default.fileExists(atPath: directory.path) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
