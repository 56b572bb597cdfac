import Benchmark
import Foundation
import WebImage

/// Finds and checks the suites' inputs.
enum BenchmarkInputs {
    /// Wall clock, CPU and allocations; few iterations because each one is a whole image.
    /// (Computed: `Benchmark.Configuration` is not `Sendable`, so it cannot be a stored static.)
    static var decodeConfiguration: Benchmark.Configuration {
        .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
              maxDuration: .seconds(3), maxIterations: 200)
    }

    /// `Tests/Fixtures/corpus` in the repository, or `$WEBIMAGE_CORPUS`.
    static let corpus: URL = {
        if let env = ProcessInfo.processInfo.environment["WEBIMAGE_CORPUS"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        // This file is Benchmarks/Benchmarks/WebImageBenchmarks/BenchmarkInputs.swift.
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Tests/Fixtures/corpus")
    }()

    static func file(_ path: String) -> URL { corpus.appendingPathComponent(path) }

    /// The file's bytes when one decode with `options` succeeds; otherwise prints why
    /// the suite `name` is skipped and returns `nil`.
    static func decodable(_ url: URL, _ name: String, options: ImageDecodeOptions = ImageDecodeOptions()) -> Data? {
        do {
            let data = try Data(contentsOf: url)
            _ = try ImageCodersManager.shared.decode(data, options: options)
            return data
        } catch {
            FileHandle.standardError.write(Data("not measured: \(name): \(error)\n".utf8))
            return nil
        }
    }

    /// An opaque diagonal gradient, a stand-in for a decoded photo.
    static func gradient(width: Int, height: Int) -> PixelBuffer {
        PixelBuffer(width: width, height: height) { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    bytes[i] = UInt8(truncatingIfNeeded: x)
                    bytes[i + 1] = UInt8(truncatingIfNeeded: y)
                    bytes[i + 2] = UInt8(truncatingIfNeeded: x &+ y)
                    bytes[i + 3] = 255
                }
            }
        }
    }
}
