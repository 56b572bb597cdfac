import Foundation
import WebImage

/// The decode modes: every input file decoded once per iteration through
/// `ImageCodersManager.shared`, from bytes already in memory (as the peers do).
struct DecodeWork {
    let mode: BenchMode
    let files: [Data]
    let size: Int
    /// The inputs decoded, for ``BenchMode/resample`` (empty otherwise).
    let decoded: [PixelBuffer]

    init(mode: BenchMode, paths: [String], size: Int) throws {
        guard !paths.isEmpty else { throw UsageError("\(mode.rawValue) needs at least one file") }
        self.mode = mode
        self.size = size
        files = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        if mode == .resample {
            decoded = try files.map { try ImageCodersManager.shared.decode($0, options: ImageDecodeOptions()).pixels }
        } else {
            decoded = []
        }
    }

    /// Decodes every file once; returns the pixels produced (all frames).
    func runOnce() throws -> Int {
        let box = PixelSize(width: size, height: size)
        var pixels = 0
        for image in decoded {
            let target = ImageDecodeOptions(thumbnailPixelSize: box)
                .targetSize(for: PixelSize(width: image.width, height: image.height))
            let small = image.resampled(width: target.width, height: target.height)
            pixels += small.width * small.height
        }
        for data in files where mode != .resample {
            switch mode {
            case .thumbnail:
                let image = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: box))
                pixels += image.width * image.height * image.frames.count
            case .decodeResize:
                let image = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
                let target = ImageDecodeOptions(thumbnailPixelSize: box)
                    .targetSize(for: PixelSize(width: image.width, height: image.height))
                let small = image.pixels.resampled(width: target.width, height: target.height)
                pixels += small.width * small.height
            case .decodeStored:
                let image = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions(applyOrientation: false, colorManagement: .keepStoredSamples))
                pixels += image.width * image.height * image.frames.count
            default:
                let image = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
                pixels += image.width * image.height * image.frames.count
            }
        }
        return pixels
    }

    func run(iterations: Int, warmup: Int) throws -> BenchReport {
        var produced = 0
        let samples = try Sampler.samples(iterations: iterations, warmup: warmup) { produced = try runOnce() }
        return BenchReport(mode: mode.rawValue, ok: true, samples: samples, opsPerSample: files.count,
                           pixelsPerSample: produced, peakRSSBytes: ProcessMemory.peakResidentBytes())
    }
}
