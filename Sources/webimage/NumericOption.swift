import ArgumentParser
import Foundation
import WebImage

/// The accepted range of every numeric option of the tool, and the checks `validate()`
/// runs, so a bad value is a usage error (exit status 2, a message on stderr) instead
/// of a crash or an overflow later.
///
/// | Option | Accepted |
/// |---|---|
/// | `--timeout SECONDS` (fetch) | a finite number, 0.001…86400 (one day) |
/// | `--concurrency N` (fetch, prefetch) | an integer, 1…1024 |
/// | `--thumbnail WxH` (fetch, decode) | integers, each side 1…65535 |
/// | `--max-pixels N` (decode) | an integer, 1…10000000000 (ten billion) |
/// | `--width N` (show) | an integer, 1…4096 columns |
/// | `--loops N` (show) | an integer, 1…10000 |
/// | `--max-age SECONDS` (cache) | a finite number ≤ 3155760000 (100 years); negative: never |
/// | `--max-size BYTES` (cache) | an integer, 0…1125899906842624 (1 PiB); 0: no limit |
///
/// Integers that do not parse (`inf`, `nan`, `1e12`, or past `Int.max`) are already
/// refused by the argument parser, also with status 2. The options are declared with
/// `parsing: .unconditional`, so a negative value such as `--max-age -1` is read as the
/// value (not as an unknown option) and either accepted or refused with its range.
enum NumericOption {
    /// `--timeout`: the downloader's own range, one millisecond to one day.
    static let timeoutSeconds = DownloaderConfig.timeoutRange
    /// `--concurrency`: the downloader's own range.
    static let concurrency = DownloaderConfig.concurrencyRange
    /// `--thumbnail`: each side, up to the decoder's largest thumbnail side.
    static let thumbnailSide = 1...ImageDecodeOptions.maxThumbnailSide
    /// `--max-pixels`: ten billion pixels is 40 GB of RGBA, far past any real image.
    static let maxPixels = 1...10_000_000_000
    /// `--width` of `show` and `demo`: terminal columns.
    static let columns = 1...TerminalImage.maxColumns
    /// `--loops` of `show`.
    static let loops = 1...10_000
    /// `--max-age` of `cache clean`: longer ages never expire (see ``DiskCache/Config/clampedAge(_:)``).
    static let maxAgeSeconds = DiskCache.Config.maxExpiringAge
    /// `--max-size` of `cache clean`: 1 PiB.
    static let maxSizeBytes = 0...(1 << 50)

    /// Checks `--timeout`: finite and within ``timeoutSeconds``.
    static func checkTimeout(_ seconds: Double) throws {
        guard seconds.isFinite, timeoutSeconds.contains(seconds) else {
            throw ValidationError("--timeout must be a number of seconds from \(format(timeoutSeconds.lowerBound)) "
                                  + "to \(format(timeoutSeconds.upperBound)) (one day); got \(format(seconds))")
        }
    }

    /// Checks an integer option against `range`; `what` names the unit ("columns").
    static func check(_ value: Int, _ option: String, in range: ClosedRange<Int>, _ what: String) throws {
        guard range.contains(value) else {
            throw ValidationError("\(option) must be \(what) from \(range.lowerBound) to \(range.upperBound); got \(value)")
        }
    }

    /// Parses `--thumbnail WxH`, each side within ``thumbnailSide``.
    static func thumbnail(_ text: String) throws -> PixelSize {
        guard let size = PixelSize(parsing: text), thumbnailSide.contains(size.width), thumbnailSide.contains(size.height)
        else {
            throw ValidationError("--thumbnail takes WxH with whole numbers from \(thumbnailSide.lowerBound) "
                                  + "to \(thumbnailSide.upperBound), e.g. 400x300; got '\(text)'")
        }
        return size
    }

    /// The problem with `--max-age`, or `nil` when it is a finite number of seconds no
    /// longer than ``maxAgeSeconds`` (negative means never).
    static func maxAgeProblem(_ text: String) -> String? {
        guard let seconds = TimeInterval(text), seconds.isFinite, seconds <= maxAgeSeconds else {
            return "--max-age must be a number of seconds up to \(format(maxAgeSeconds)) (100 years), "
                + "or negative for never; got '\(text)'"
        }
        return nil
    }

    /// The problem with `--max-size`, or `nil` when it is a whole number of bytes in ``maxSizeBytes``.
    static func maxSizeProblem(_ text: String) -> String? {
        guard let bytes = Int(text), maxSizeBytes.contains(bytes) else {
            return "--max-size must be a whole number of bytes from 0 (no limit) to \(maxSizeBytes.upperBound) (1 PiB); got '\(text)'"
        }
        return nil
    }

    /// `seconds` without a needless `.0`: `86400`, `0.001`, `inf`, `nan`.
    static func format(_ seconds: Double) -> String {
        if seconds.isFinite, seconds == seconds.rounded(), abs(seconds) < 1e15 { return String(Int64(seconds)) }
        return String(seconds)
    }
}
