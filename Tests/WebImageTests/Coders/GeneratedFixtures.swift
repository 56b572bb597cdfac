import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// The AVIF/HEIC/JPEG XL files in `Tests/Fixtures/generated` and the reference decodes
/// `scripts/make-format-fixtures.py` wrote with the Python plugins (REFERENCES.tsv).
enum GeneratedFixtures {
    /// One REFERENCES.tsv row.
    struct Row: Sendable, CustomStringConvertible {
        /// A file in the generated folder, or a corpus path (`avif/…`).
        var file: String
        /// `exact` (lossless) or `lossy`.
        var kind: String
        var durations: [Double]
        var display: PixelSize
        /// x0, y0, x1, y1 of the reference when it is a crop of the decode.
        var crop: [Int]?
        var references: [String]
        var description: String { file }

        var isCorpusFile: Bool { file.contains("/") }
        func data() throws -> Data {
            isCorpusFile ? try Corpus.data(file) : try Data(contentsOf: GeneratedFixtures.root.appendingPathComponent(file))
        }

        /// The plugin's decode of frame `index`.
        func reference(_ index: Int) throws -> PixelBuffer {
            let data = try Data(contentsOf: GeneratedFixtures.root.appendingPathComponent(references[index]))
            return try PNGCoder().decode(data, options: ImageDecodeOptions(colorManagement: .keepStoredSamples)).pixels
        }
    }

    static let root = Corpus.packageRoot.appendingPathComponent("Tests/Fixtures/generated")

    static let rows: [Row] = {
        guard let text = try? String(contentsOf: root.appendingPathComponent("REFERENCES.tsv"), encoding: .utf8) else {
            return []
        }
        return text.split(separator: "\n").dropFirst().compactMap { line -> Row? in
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count == 7, let display = PixelSize(parsing: c[4]) else { return nil }
            let crop = c[5].split(separator: ",").compactMap { Int($0) }
            return Row(file: c[0], kind: c[1], durations: c[3].split(separator: ",").compactMap { Double($0) }.map { $0 / 1000 },
                       display: display, crop: crop.count == 4 ? crop : nil,
                       references: c[6].split(separator: ",").map(String.init))
        }
    }()

    /// Rows whose file name ends with `.ext`.
    static func rows(_ ext: String) -> [Row] {
        rows.filter { $0.file.hasSuffix("." + ext) }
    }

    /// The largest and the mean absolute difference per channel byte; `nil` when sizes differ.
    static func difference(_ a: PixelBuffer, _ b: PixelBuffer) -> (max: Int, mean: Double)? {
        guard a.width == b.width, a.height == b.height else { return nil }
        guard !a.bytes.isEmpty else { return (0, 0) }
        var largest = 0, sum = 0
        for i in a.bytes.indices {
            let d = abs(Int(a.bytes[i]) - Int(b.bytes[i]))
            largest = max(largest, d)
            sum += d
        }
        return (largest, Double(sum) / Double(a.bytes.count))
    }

    /// The `x0, y0, x1, y1` region of `pixels`.
    static func crop(_ pixels: PixelBuffer, _ r: [Int]) -> PixelBuffer {
        let w = r[2] - r[0], h = r[3] - r[1]
        return PixelBuffer(width: w, height: h) { out in
            for y in 0..<h {
                for x in 0..<w * 4 { out[y * w * 4 + x] = pixels.bytes[((r[1] + y) * pixels.width + r[0]) * 4 + x] }
            }
        }
    }

    /// Decodes `row` with `coder` and checks frames, durations, display size and pixels
    /// against the plugin's decode within `tolerance` (largest, mean) for lossy files;
    /// lossless ones must match exactly. Returns the worst difference seen.
    @discardableResult
    static func check(_ row: Row, with coder: some ImageCoder, tolerance: (max: Int, mean: Double)) throws -> (max: Int, mean: Double) {
        // The plugins return the stored samples: compare before colour management.
        let image = try coder.decode(row.data(), options: ImageDecodeOptions(colorManagement: .keepStoredSamples))
        #expect(image.frames.count == row.references.count, "\(row)")
        if row.crop == nil {
            #expect(PixelSize(width: image.width, height: image.height) == row.display, "\(row)")
        }
        if image.frames.count > 1 {
            for (got, want) in zip(image.frames.map(\.duration), row.durations) {
                #expect(abs(got - want) < 0.0015, "\(row): duration \(got) s, the plugin says \(want) s")
            }
        }
        var worst = (max: 0, mean: 0.0)
        for index in 0..<min(image.frames.count, row.references.count) {
            var pixels = image.frames[index].pixels
            if let region = row.crop { pixels = GeneratedFixtures.crop(pixels, region) }
            let d = try #require(difference(pixels, try row.reference(index)), "\(row) frame \(index): size differs")
            worst = (max(worst.max, d.max), max(worst.mean, d.mean))
            if row.kind == "exact" {
                #expect(d.max == 0, "\(row) frame \(index): lossless file differs by up to \(d.max)")
            } else {
                #expect(d.max <= tolerance.max && d.mean <= tolerance.mean,
                        "\(row) frame \(index): differs by up to \(d.max), mean \(d.mean)")
            }
        }
        return worst
    }

    /// The code of the ``WebImageError`` `body` throws; `nil` when it returns. Any other
    /// error is recorded as a test failure.
    static func errorCode<T>(_ body: () throws -> T) -> WebImageError.Code? {
        JPEGCoderTests.code(of: body)
    }
}
