import Foundation
import WebImage

/// The animation modes: frames decoded on demand through `AnimatedImage`, from bytes
/// already in memory.
enum AnimationWork {
    /// A clock that never waits: the player shows every frame as soon as it is decoded,
    /// so one sample is the whole play's decode-and-hand-over time.
    struct ImmediateClock: AnimationClock {
        func now() -> Duration { .zero }
        func sleep(until deadline: Duration) async throws {}
    }

    static func animations(_ paths: [String]) throws -> [Data] {
        guard !paths.isEmpty else { throw UsageError("animation modes need at least one file") }
        return try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    }

    static func open(_ data: Data) throws -> AnimatedImage {
        guard let animation = try AnimatedImage(data: data) else { throw UsageError("not an animation") }
        return animation
    }

    /// ``BenchMode/animationPlay``: each file played once through an `AnimatedImagePlayer`
    /// (default buffer, decoding on the shared `DecodeQueue`).
    static func play(paths: [String], iterations: Int, warmup: Int) throws -> BenchReport {
        let files = try animations(paths)
        let frames = try AsyncBridge.wait {
            var shown = 0
            let samples = try await Sampler.samples(iterations: iterations, warmup: warmup) {
                shown = 0
                for data in files {
                    let player = AnimatedImagePlayer(try open(data), loopCount: 1, clock: ImmediateClock())
                    try await player.play { _ in }
                    shown += player.statistics.shownFrames
                }
            }
            return (samples, shown)
        }
        return BenchReport(mode: BenchMode.animationPlay.rawValue, ok: true, samples: frames.0, opsPerSample: frames.1,
                           peakRSSBytes: ProcessMemory.peakResidentBytes())
    }

    /// ``BenchMode/animationFrames``: every frame of each file once, in order
    /// (`forEachFrame`, buffers recycled), nothing kept.
    static func frames(paths: [String], iterations: Int, warmup: Int) throws -> BenchReport {
        try eachFrame(.animationFrames, paths: paths, iterations: iterations, warmup: warmup) { frame in
            frame.pixels.width * frame.pixels.height
        }
    }

    /// ``BenchMode/animationPNG``: every frame of each file once, in order, encoded as PNG
    /// the way `webimage decode --all-frames` writes it (RGBA, default options); the PNG
    /// bytes are reported as `pixelsPerSample`, so the table can say both sides' sizes.
    static func framesAsPNG(paths: [String], iterations: Int, warmup: Int) throws -> BenchReport {
        try eachFrame(.animationPNG, paths: paths, iterations: iterations, warmup: warmup) { frame throws(WebImageError) in
            let image = DecodedImage(pixels: frame.pixels, format: .png)
            return try ImageCodersManager.shared.encode(image, as: .png, options: ImageEncodeOptions()).count
        }
    }

    /// Walks every frame of each file once per iteration; `measure` turns a frame into the
    /// figure summed per iteration and reported as `pixelsPerSample`.
    private static func eachFrame(_ mode: BenchMode, paths: [String], iterations: Int, warmup: Int,
                                  measure: (ImageFrame) throws(WebImageError) -> Int) throws -> BenchReport {
        let files = try animations(paths)
        var total = 0
        let samples = try Sampler.samples(iterations: iterations, warmup: warmup) {
            total = 0
            for data in files {
                try open(data).forEachFrame { _, frame throws(WebImageError) in total += try measure(frame) }
            }
        }
        return BenchReport(mode: mode.rawValue, ok: true, samples: samples, opsPerSample: files.count,
                           pixelsPerSample: total, peakRSSBytes: ProcessMemory.peakResidentBytes())
    }

    /// ``BenchMode/animationFirstFrame``: open each animation and decode its first frame;
    /// ``BenchMode/stillFirstFrame``: the same first image decoded as a still (the eager
    /// decoder with `firstFrameOnly`: same pixels, same compressed data, no animation).
    static func firstFrame(paths: [String], still: Bool, iterations: Int, warmup: Int) throws -> BenchReport {
        let files = try animations(paths)
        let samples = try Sampler.samples(iterations: iterations, warmup: warmup) {
            for data in files {
                if still {
                    _ = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions(firstFrameOnly: true))
                } else {
                    _ = try open(data).frame(at: 0)
                }
            }
        }
        let mode: BenchMode = still ? .stillFirstFrame : .animationFirstFrame
        return BenchReport(mode: mode.rawValue, ok: true, samples: samples, opsPerSample: files.count,
                           peakRSSBytes: ProcessMemory.peakResidentBytes())
    }
}
