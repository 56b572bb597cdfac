import Dispatch
import Foundation
import WebImage

/// One fuzzed entry point of the library: what libFuzzer (or a replay) feeds an input to.
///
/// Each target must return normally for every input: a `WebImageError` is a correct
/// answer; a crash, a sanitizer report, a hang or a runaway allocation is a finding.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// ``ImageFormat/detect(_:)`` and the coders' signature checks.
    case sniff
    /// Each built-in coder alone, at full size and as a thumbnail.
    case jpeg, png, gif, webp
    /// The system-library coders (libavif, libheif, libjxl) alone, likewise.
    case avif, heif, jxl
    /// The shared coders' incremental decoder, fed the input in two or three pieces.
    case incremental
    /// The lazy animation path (``AnimatedImage``): structure, then frames out of order,
    /// which makes the GIF/APNG/WebP decoders re-decode from a keyframe.
    case animated
    /// The disk cache's read path: the input as an entry file and as its extended data,
    /// read back through ``DiskCache`` and decoded through ``ImageCache``.
    case diskcache
    /// The image proxy's URL language: presets, paths, signatures and the geometry plan.
    case proxypath
    /// The parquet reader (bulk mode's `--input-format parquet`): footer, pages, codecs, encodings.
    case parquet

    /// A limit well under the default, so libFuzzer spends its time in parsers rather
    /// than in filling huge, mostly empty canvases; the limit check itself stays covered.
    static let options = ImageDecodeOptions(maxPixelCount: 4_000_000)
    static let thumbnail = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 33, height: 17), maxPixelCount: 4_000_000)

    /// Runs the target on one input.
    func run(_ data: Data) {
        switch self {
        case .sniff:
            _ = ImageFormat.detect(data)
            for coder in ImageCodersManager.builtInCoders { _ = coder.canDecode(data) }
            _ = ImageCodersManager.shared.canDecodeIncrementally(data)
        case .jpeg: Self.decode(data, with: JPEGCoder())
        case .png: Self.decode(data, with: PNGCoder())
        case .gif: Self.decode(data, with: GIFCoder())
        case .webp: Self.decode(data, with: WebPCoder())
        case .avif: Self.decode(data, with: AVIFCoder())
        case .heif: Self.decode(data, with: HEIFCoder())
        case .jxl: Self.decode(data, with: JXLCoder())
        case .incremental: Self.decodeIncrementally(data)
        case .animated: Self.decodeLazily(data)
        case .diskcache: FuzzDiskCache.shared.read(data)
        case .proxypath: FuzzProxyPath.run(data)
        case .parquet: FuzzParquet.run(data)
        }
    }

    /// Decodes with `coder` whether or not it claims the data: its own checks must hold.
    private static func decode(_ data: Data, with coder: some ImageCoder) {
        let options = data.count % 2 == 0 ? options : thumbnail
        _ = try? coder.decode(data, options: options)
        if let progressive = coder as? any ProgressiveImageCoder {
            let decoder = progressive.makeIncrementalDecoder(options: options)
            _ = try? decoder.decode(data.prefix(data.count / 2), isComplete: false)
            _ = try? decoder.decode(data, isComplete: true)
        }
    }

    /// Frames last, first, then the middle one: forward, backward and a jump.
    private static func decodeLazily(_ data: Data) {
        guard let animation = try? AnimatedImage(data: data, options: options) else { return }
        let count = animation.availableFrameCount
        guard count > 0 else { return }
        for index in [count - 1, 0, count / 2] {
            _ = try? animation.frame(at: index)
        }
    }

    /// The first byte picks where the pieces end, so the fuzzer explores the splits too.
    private static func decodeIncrementally(_ data: Data) {
        guard let selector = data.first else { return }
        let body = data.dropFirst()
        let decoder = ImageCodersManager.shared.makeIncrementalDecoder(options: options)
        let first = body.count * Int(selector & 0x0F) / 16
        let second = first + (body.count - first) * Int(selector >> 4) / 16
        for end in [first, second] {
            do {
                _ = try decoder.decode(Data(body.prefix(end)), isComplete: false)
            } catch {
                return
            }
        }
        _ = try? decoder.decode(Data(body), isComplete: true)
    }
}
