import Foundation
@testable import WebImage
@testable import WebImageCodecs

/// The corpus rows the hardening suites feed to the decoders, and how they cut them.
///
/// `make test` keeps to files up to ``defaultMaxBytes`` (the debug build decodes big files
/// slowly); `WEBIMAGE_HARDENING_ALL=1` (set by `make test-asan`) takes every file.
enum HostileCorpus {
    /// The formats the built-in coders decode (MANIFEST's names).
    static let decodedFormats: Set<String> = ["jpeg", "png", "apng", "gif", "webp", "avif", "heic", "heif", "jxl"]

    static let defaultMaxBytes = 300_000

    static var includesLargeFiles: Bool {
        ProcessInfo.processInfo.environment["WEBIMAGE_HARDENING_ALL"] == "1"
    }

    /// Every row the manifest says must fail (`fail`) or must be refused as too large (`bomb`),
    /// whatever its format.
    static let mustFail: [Corpus.Entry] = Corpus.entries.filter { $0.expect == "fail" || $0.expect == "bomb" }

    /// Valid files of the decoded formats, within the size budget of this run.
    static let valid: [Corpus.Entry] = Corpus.entries.filter {
        $0.expect == "ok" && decodedFormats.contains($0.format) && (includesLargeFiles || $0.bytes <= defaultMaxBytes)
    }

    /// Ten byte counts at which to cut `count` bytes: 0, 1, and eight points spread over the
    /// file up to 98% of it (fewer for files shorter than ten bytes).
    static func cutPoints(count: Int) -> [Int] {
        let fractions = [0.05, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 0.98]
        var points = [0, 1] + fractions.map { Int(Double(count) * $0) }
        points = points.filter { $0 < count }
        return Array(Set(points)).sorted()
    }

    /// Whether two decodes produced the same picture: size, frames and pixels.
    static func samePicture(_ a: DecodedImage, _ b: DecodedImage) -> Bool {
        a.width == b.width && a.height == b.height && a.frames.count == b.frames.count
            && zip(a.frames, b.frames).allSatisfy { $0.pixels.bytes == $1.pixels.bytes }
    }
}
