import Benchmark
import Foundation
import WebImage

/// package-benchmark suites for the library's hot paths; run with
/// `swift package --disable-sandbox benchmark` in `Benchmarks/` (or `make suites`).
/// Cache and manager suites join these once those layers are merged.
///
/// Inputs are real photos from `Tests/Fixtures/corpus` (or `$WEBIMAGE_CORPUS`). A suite whose
/// input cannot be decoded in this build is not registered, and says why on stderr.
let benchmarks: @Sendable () -> Void = {
    let photo = BenchmarkInputs.file("jpeg/jpeg-decoder/large_image.jpg")
    let large = BenchmarkInputs.file("jpeg/sdwebimage/TestImageLarge.jpg")
    let thumbnail = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 400, height: 400))

    if let data = BenchmarkInputs.decodable(photo, "decode photo JPEG 2268x1512") {
        Benchmark("decode photo JPEG 2268x1512", configuration: BenchmarkInputs.decodeConfiguration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions()))
            }
        }
    }

    if let data = BenchmarkInputs.decodable(large, "thumbnail 5250x3450 JPEG to 400 px", options: thumbnail) {
        Benchmark("thumbnail 5250x3450 JPEG to 400 px", configuration: BenchmarkInputs.decodeConfiguration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try ImageCodersManager.shared.decode(data, options: thumbnail))
            }
        }
    }

    // The resampler alone, on a synthetic photo-sized buffer, so it is measured even
    // before any codec exists.
    let source = BenchmarkInputs.gradient(width: 2268, height: 1512)
    Benchmark("resample 2268x1512 to 400x267", configuration: BenchmarkInputs.decodeConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(source.resampled(width: 400, height: 267))
        }
    }
}
