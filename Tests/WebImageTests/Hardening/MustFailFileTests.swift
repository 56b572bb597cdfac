import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// Every corpus file its suite calls invalid (`fail`) or a decompression bomb (`bomb`),
/// of any format, fails through the shared coders with a `WebImageError`; bombs with
/// `imageTooLarge`. The same holds through the incremental decoders.
@Suite("Hardening: files that must fail", .timeLimit(.minutes(5)))
struct MustFailFileTests {
    static let files = HostileCorpus.mustFail

    @Test("the manifest has fail and bomb rows")
    func corpusPresent() {
        #expect(Self.files.count > 40)
        #expect(Self.files.filter { $0.expect == "bomb" }.count >= 5)
    }

    @Test("one-shot decode fails with a WebImageError", arguments: files)
    func oneShot(entry: Corpus.Entry) throws {
        let data = try entry.data()
        let error = try #require(throws: WebImageError.self) {
            try ImageCodersManager.shared.decode(data, options: .init())
        }
        if entry.expect == "bomb" {
            #expect(error.code == .imageTooLarge, "\(error)")
        }
    }

    @Test("PNG image data that is corrupt under sound chunks fails with badImageData (the libdeflate fast path refuses it)")
    func pngImageData() throws {
        for (what, data) in try PNGFastPathTests.corruptImageData() {
            let error = try #require(throws: WebImageError.self, "\(what)") {
                try ImageCodersManager.shared.decode(data, options: .init())
            }
            #expect(error.code == .badImageData, "\(what): \(error)")
            let thumbnail = try #require(throws: WebImageError.self, "\(what), as a thumbnail") {
                try ImageCodersManager.shared.decode(data, options: .init(thumbnailPixelSize: PixelSize(width: 4, height: 4)))
            }
            #expect(thumbnail.code == .badImageData, "\(what): \(thumbnail)")
        }
    }

    @Test("incremental decode fails with a WebImageError, at the latest when complete", arguments: files)
    func incremental(entry: Corpus.Entry) throws {
        let data = try entry.data()
        let decoder = ImageCodersManager.shared.makeIncrementalDecoder(options: .init())
        var caught: WebImageError?
        for end in [data.count / 3, 2 * data.count / 3] where caught == nil {
            do {
                if let image = try decoder.decode(data.prefix(end), isComplete: false) {
                    #expect(image.isIncremental)
                }
            } catch let error as WebImageError {
                caught = error
            }
        }
        if caught == nil {
            caught = try #require(throws: WebImageError.self) { try decoder.decode(data, isComplete: true) }
        }
        if entry.expect == "bomb" {
            #expect(caught?.code == .imageTooLarge, "\(String(describing: caught))")
        }
    }
}
