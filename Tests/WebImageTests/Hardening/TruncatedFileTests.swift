import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// Valid corpus files cut short, as a dropped connection leaves them: each cut either
/// decodes to a partial image flagged `isIncremental`, or fails with `badImageData`.
///
/// Two exceptions are honest rather than partial: a cut that removed only bytes after the
/// image (trailing metadata) may decode to exactly the full file's picture, and a cut that
/// falls between a GIF's blocks or a JPEG's markers is a complete file but for its end
/// marker (GIF `;`, JPEG EOI): it may decode as that file with the marker added does.
@Suite("Hardening: truncated files", .timeLimit(.minutes(10)))
struct TruncatedFileTests {
    static let files = HostileCorpus.valid

    @Test("the corpus has valid files of every decoded format")
    func corpusPresent() {
        for format in HostileCorpus.decodedFormats {
            #expect(Self.files.contains { $0.format == format }, "no valid \(format) files")
        }
    }

    @Test("one-shot decodes of cut files are partial, the whole picture, or badImageData", arguments: files)
    func oneShot(entry: Corpus.Entry) throws {
        let data = try entry.data()
        let full = try Self.reference(data)
        for cut in HostileCorpus.cutPoints(count: data.count) {
            let prefix = data.prefix(cut)
            let outcome = Result { try ImageCodersManager.shared.decode(prefix, options: .init()) }
            check(outcome, prefix: prefix, of: data.count, full: full)
        }
    }

    @Test("incremental decoders fed cut files in pieces never crash or mislabel", arguments: files)
    func incremental(entry: Corpus.Entry) throws {
        let data = try entry.data()
        let full = try Self.reference(data)
        for cut in HostileCorpus.cutPoints(count: data.count) {
            let prefix = data.prefix(cut)
            let decoder = ImageCodersManager.shared.makeIncrementalDecoder(options: .init())
            // Three pieces while "downloading": partial images only, or an early, coded error.
            var failedEarly = false
            for end in [cut / 3, 2 * cut / 3, cut] where !failedEarly {
                do {
                    if let image = try decoder.decode(prefix.prefix(end), isComplete: false) {
                        #expect(image.isIncremental, "cut at \(cut): partial image not flagged isIncremental")
                    }
                } catch let error as WebImageError {
                    #expect(Self.isHonest(error, full: full), "cut at \(cut), piece to \(end): \(error)")
                    failedEarly = true
                }
            }
            if failedEarly { continue }
            // The connection ended: the final call must follow the one-shot rule.
            switch Result(catching: { try decoder.decode(prefix, isComplete: true) }) {
            case .success(nil):
                Issue.record("cut at \(cut): isComplete returned nil")
            case .success(let image?):
                check(.success(image), prefix: prefix, of: data.count, full: full)
            case .failure(let error):
                check(.failure(error), prefix: prefix, of: data.count, full: full)
            }
        }
    }

    @Test("a GIF cut inside a frame keeps the frames before it, flagged partial; one missing its trailer is whole")
    func gifCutInsideBlock() throws {
        // 38 bytes of header and loop extension, then 23 bytes per frame, then the trailer.
        let gif = BombFiles.gifFrames(width: 8, height: 8, frames: 3)
        let withoutTrailer = try ImageCodersManager.shared.decode(gif.dropLast(), options: .init())
        #expect(withoutTrailer.frames.count == 3 && !withoutTrailer.isIncremental)
        let cut = try ImageCodersManager.shared.decode(gif.prefix(38 + 2 * 23 + 15), options: .init())
        #expect(cut.frames.count == 2 && cut.isIncremental)
    }

    /// The whole file's decode, or `nil` for a valid file using a feature the coder lacks
    /// (lossless JPEG), whose cuts may then also fail with `unsupportedFormat`.
    static func reference(_ data: Data) throws -> DecodedImage? {
        do {
            return try ImageCodersManager.shared.decode(data, options: .init())
        } catch where error.code == .unsupportedFormat {
            return nil
        }
    }

    static func isHonest(_ error: WebImageError, full: DecodedImage?) -> Bool {
        error.code == .badImageData || (full == nil && error.code == .unsupportedFormat)
    }

    private func check(_ outcome: Result<DecodedImage, any Error>, prefix: Data, of count: Int, full: DecodedImage?,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        let place = "cut at \(prefix.count) of \(count) bytes"
        switch outcome {
        case .success(let image):
            guard !image.isIncremental else { return }
            guard let full else {
                Issue.record("\(place): decoded a file whose whole fails as unsupported", sourceLocation: sourceLocation)
                return
            }
            let got = "\(image.width)x\(image.height), \(image.frames.count) frames"
            let whole = "\(full.width)x\(full.height), \(full.frames.count) frames"
            let isHonest = HostileCorpus.samePicture(image, full) || Self.lacksOnlyEndMarker(prefix, decodedAs: image)
            #expect(isHonest, "\(place): a non-incremental image (\(got)) that is not the whole picture (\(whole))",
                    sourceLocation: sourceLocation)
        case .failure(let error as WebImageError):
            #expect(Self.isHonest(error, full: full), "\(place): \(error)", sourceLocation: sourceLocation)
        case .failure(let error):
            Issue.record("\(place): not a WebImageError: \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Whether `prefix` with its format's end marker added decodes, whole, to `image`.
    static func lacksOnlyEndMarker(_ prefix: Data, decodedAs image: DecodedImage) -> Bool {
        let marker: [UInt8] = switch ImageFormat.detect(prefix) {
        case .gif: [0x3B]
        case .jpeg: [0xFF, 0xD9]
        default: []
        }
        guard !marker.isEmpty,
              let completed = try? ImageCodersManager.shared.decode(prefix + marker, options: .init()),
              !completed.isIncremental
        else { return false }
        return HostileCorpus.samePicture(completed, image)
    }
}
