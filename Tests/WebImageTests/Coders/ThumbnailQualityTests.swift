import Foundation
import Testing
import WebImageCodecs

/// Issue #29 §3: thumbnails at libvips' quality, measured rather than assumed.
///
/// Our thumbnails of a 12 MP JPEG (baseline, progressive, ICC-tagged), a 3000×2000 PNG and
/// a 24 MP WebP, fitted to 300, 500 and 1200 px boxes, are scored by PSNR against a
/// reference nobody here wrote: Pillow's full decode of the source, converted to sRGB with
/// ImageCms, turned upright, Lanczos-resized by Pillow to our exact size. libvips' thumbnail
/// (pyvips, Debian's libvips 8.14) is scored against the same reference beside it. Python
/// computes every expected value (`scripts/thumbnail-quality.py`); our output is only ever
/// the thing measured. Goal: within 1 dB of libvips on every case.
@Suite("Thumbnail quality against a full-decode Lanczos reference, beside libvips", .serialized,
       .timeLimit(.minutes(5)))
struct ThumbnailQualityTests {
    static let script = Corpus.packageRoot.appendingPathComponent("scripts/thumbnail-quality.py")

    /// The interpreter with Pillow, numpy and pyvips: `$WEBIMAGE_QUALITY_PYTHON`, or the
    /// test virtual environment `make test-venv` creates. `nil` when neither imports them.
    static let python: String? = {
        let candidates: [String?] = [ProcessInfo.processInfo.environment["WEBIMAGE_QUALITY_PYTHON"],
                                     Corpus.packageRoot.appendingPathComponent(".build-test/venv/bin/python").path]
        return candidates.compactMap { $0 }.first { path in
            guard FileManager.default.isExecutableFile(atPath: path) else { return false }
            return (try? run(path, ["-c", "import PIL, numpy, pyvips; pyvips.version(0)"]).status) == 0
        }
    }()

    static let sources = ["baseline.jpg", "progressive.jpg", "icc.jpg", "large.png", "bryce.webp"]
    static let sizes = [300, 500, 1200]

    struct Score: Decodable {
        var name: String
        var size: Int
        var ours: Double
        var libvips: Double
    }

    @Test("every case scores within 1 dB of libvips' thumbnail",
          .enabled(if: python != nil, "needs Pillow, numpy, pyvips and libvips42: run `make test-deps test-venv` (or set WEBIMAGE_QUALITY_PYTHON)"))
    func withinOneDecibelOfLibvips() throws {
        let python = try #require(Self.python)
        let directory = try TemporaryDirectory()
        let made = try Self.run(python, [Self.script.path, "fixtures", Corpus.root.path, directory.path])
        try #require(made.status == 0, "fixtures: \(made.err)")

        // Our side: each source decoded as a thumbnail, the raw RGBA written for Python to score.
        var cases: [[String: Any]] = []
        for name in Self.sources {
            let data = try Data(contentsOf: directory.url.appendingPathComponent(name))
            for size in Self.sizes {
                let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: size, height: size))
                let image = try ImageCodersManager.shared.decode(data, options: options)
                #expect(max(image.width, image.height) == size, "\(name) at \(size): \(image.width)×\(image.height)")
                let output = directory.url.appendingPathComponent("\(name)-\(size).rgba")
                try Data(image.pixels.bytes).write(to: output)
                cases.append(["name": name, "size": size, "output": output.path, "width": image.width,
                              "height": image.height])
            }
        }
        let casesURL = directory.url.appendingPathComponent("cases.json")
        try JSONSerialization.data(withJSONObject: cases).write(to: casesURL)

        let measured = try Self.run(python, [Self.script.path, "measure", directory.path, casesURL.path])
        try #require(measured.status == 0, "measure: \(measured.err)")
        let scores = try measured.out.split(separator: "\n").map {
            try JSONDecoder().decode(Score.self, from: Data($0.utf8))
        }
        #expect(scores.count == cases.count)
        var table = "source            box   ours dB  libvips dB\n"
        for score in scores {
            table += "\(score.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(String(format: "%5d %8.2f %11.2f", score.size, score.ours, score.libvips))\n"
            #expect(score.ours >= score.libvips - 1, "\(score.name) at \(score.size): \(score.ours) dB vs libvips \(score.libvips) dB")
        }
        print(table, terminator: "")
    }

    /// Runs `executable` with `arguments`; stdout is read while it runs, stderr goes to a file.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("quality-\(UUID().uuidString).err")
        guard FileManager.default.createFile(atPath: errURL.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        defer { try? FileManager.default.removeItem(at: errURL) }
        let errHandle = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = errHandle
        try process.run()
        let outText = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try errHandle.close()
        return (process.terminationStatus, outText, String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}
