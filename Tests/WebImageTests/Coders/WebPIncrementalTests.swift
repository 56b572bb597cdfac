import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("WebPIncrementalDecoder: partial images while bytes arrive", .timeLimit(.minutes(2)))
struct WebPIncrementalTests {
    let coder = WebPCoder()

    /// Feeds `data` in `steps` growing prefixes and returns every result, the last one complete.
    static func feed(_ data: Data, steps: Int, options: ImageDecodeOptions = ImageDecodeOptions()) throws -> [DecodedImage?] {
        let decoder = WebPCoder().makeIncrementalDecoder(options: options)
        var results: [DecodedImage?] = []
        for step in 1...steps {
            let end = data.count * step / steps
            results.append(try decoder.decode(data.prefix(end), isComplete: step == steps))
        }
        return results
    }

    /// How far a partial image has got: the rows above the transparent rows at the bottom.
    static func paintedRows(_ p: PixelBuffer) -> Int {
        p.bytes.withUnsafeBufferPointer { bytes in
            var row = p.height
            while row > 0 {
                let start = (row - 1) * p.width * 4
                if stride(from: start + 3, to: start + p.width * 4, by: 4).contains(where: { bytes[$0] != 0 }) { break }
                row -= 1
            }
            return row
        }
    }

    @Test("a lossy still grows row by row, then equals the one-shot decode",
          arguments: ["webp/pillow/flower.webp", "webp/libwebp-test-data/lossless1.webp",
                      "webp/libwebp-test-data/lossy_alpha1.webp"])
    func partialsThenFinal(path: String) throws {
        let data = try Corpus.data(path)
        let results = try Self.feed(data, steps: 12)
        let partials = results.dropLast().compactMap { $0 }
        #expect(partials.count >= 5, "only \(partials.count) partial images")
        #expect(partials.allSatisfy { $0.isIncremental })
        let rows = partials.map { Self.paintedRows($0.pixels) }
        #expect(rows == rows.sorted(), "partial images must only grow: \(rows)")
        #expect((rows.first ?? 0) < (rows.last ?? 0))
        let final = try #require(results.last ?? nil)
        #expect(!final.isIncremental)
        #expect(final == (try coder.decode(data, options: ImageDecodeOptions())))
    }

    @Test("every still of the corpus ends equal to its one-shot decode, with thumbnails too",
          arguments: Corpus.entries(format: "webp", expect: ["ok"]).filter { ($0.frames ?? 1) == 1 && $0.bytes < 500_000 })
    func finalEqualsOneShot(_ entry: Corpus.Entry) throws {
        let data = try entry.data()
        for options in [ImageDecodeOptions(), ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 60, height: 40))] {
            let final = try #require(try Self.feed(data, steps: 3, options: options).last ?? nil)
            #expect(final == (try coder.decode(data, options: options)))
        }
    }

    @Test("an animation gives nil until complete, then every frame")
    func animated() throws {
        let data = try Corpus.data("webp/sharp/rotating-squares.webp")
        let results = try Self.feed(data, steps: 6)
        #expect(results.dropLast().allSatisfy { $0 == nil })
        let final = try #require(results.last ?? nil)
        #expect(final.frames.count == 9 && !final.isIncremental)
    }

    @Test("an oversized header fails early with imageTooLarge")
    func tooLarge() throws {
        let decoder = coder.makeIncrementalDecoder(options: ImageDecodeOptions())
        #expect(try decoder.decode(Data("RIFF".utf8), isComplete: false) == nil)
        let header = WebPSamples.vp8xHeader(width: 100_000, height: 100_000)
        #expect(WebPSamples.errorCode { try decoder.decode(header, isComplete: false) } == .imageTooLarge)
    }

    @Test("truncated at many points: partials never crash, and a short file ends as the one-shot decode does")
    func truncation() throws {
        var failures = 0
        for path in ["webp/libwebp-test-data/test.webp", "webp/libwebp-test-data/lossless_vec_2_3.webp",
                     "webp/image-rs/lossy_alpha.webp"] {
            let data = try Corpus.data(path)
            for cut in stride(from: 1, to: data.count, by: max(1, data.count / 40)) {
                let prefix = data.prefix(cut)
                let decoder = coder.makeIncrementalDecoder(options: ImageDecodeOptions())
                _ = try decoder.decode(data.prefix(cut / 2), isComplete: false)
                if let partial = try decoder.decode(prefix, isComplete: false) {
                    #expect(partial.isIncremental && partial.width > 0)
                }
                // test.webp ends with metadata chunks: cut there, the image is still whole.
                if let whole = try? coder.decode(prefix, options: ImageDecodeOptions()) {
                    #expect(try decoder.decode(prefix, isComplete: true) == whole, "\(path) cut at \(cut)")
                } else {
                    failures += 1
                    #expect(WebPSamples.errorCode { try decoder.decode(prefix, isComplete: true) } == .badImageData)
                }
            }
        }
        #expect(failures >= 80)
        let decoder = coder.makeIncrementalDecoder(options: ImageDecodeOptions())
        #expect(WebPSamples.errorCode { try decoder.decode(Data("RIFF\0\0\0\0JPEG".utf8), isComplete: false) } == .badImageData)
    }

    @Test("the manager routes WebP to the incremental decoder")
    func manager() throws {
        let data = try Corpus.data("webp/libwebp-test-data/lossless1.webp")
        #expect(coder.canDecodeIncrementally(data.prefix(12)))
        let decoder = ImageCodersManager.shared.makeIncrementalDecoder(options: ImageDecodeOptions())
        let partial = try decoder.decode(data.prefix(data.count * 2 / 3), isComplete: false)
        #expect(partial?.isIncremental == true)
        #expect(try decoder.decode(data, isComplete: true) == (try coder.decode(data, options: ImageDecodeOptions())))
    }
}
