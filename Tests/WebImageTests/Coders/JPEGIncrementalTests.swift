import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("JPEGIncrementalDecoder: partial images while data arrives", .timeLimit(.minutes(3)))
struct JPEGIncrementalTests {
    /// Feeds `data` in `chunks` growing prefixes, then completes it; returns the partial
    /// images (non-nil, in order) and the final one.
    static func feed(_ data: Data, chunks: Int, options: ImageDecodeOptions = .init()) throws -> (partials: [DecodedImage], final: DecodedImage?) {
        let decoder = JPEGCoder().makeIncrementalDecoder(options: options)
        var partials: [DecodedImage] = []
        for i in 1..<chunks {
            if let image = try decoder.decode(data.prefix(data.count * i / chunks), isComplete: false) {
                partials.append(image)
            }
        }
        return (partials, try decoder.decode(data, isComplete: true))
    }

    @Test("a progressive JPEG shows sharper pictures scan by scan, then equals a one-shot decode")
    func progressive() throws {
        let data = try Corpus.data("jpeg/jpeg-decoder/tower_progressive.jpg")
        let (partials, final) = try Self.feed(data, chunks: 16)
        #expect(partials.allSatisfy { $0.isIncremental && $0.width == 512 && $0.height == 512 })
        #expect(Set(partials.map(\.pixels)).count >= 2, "distinct partial pictures")
        let expected = try JPEGCoder().decode(data, options: .init())
        #expect(final == expected)
        #expect(final?.isIncremental == false)
        // The last partial picture is closer to the final one than the first.
        let first = try #require(partials.first), last = try #require(partials.last)
        #expect(JPEGCoderTests.meanDifference(last.pixels, expected.pixels) < JPEGCoderTests.meanDifference(first.pixels, expected.pixels))
    }

    @Test("a baseline JPEG shows the rows decoded so far; the rest is transparent")
    func baseline() throws {
        let data = try Corpus.data("jpeg/wuffs/harvesters.jpeg")
        let (partials, final) = try Self.feed(data, chunks: 8)
        #expect(partials.count >= 4)
        let middle = try #require(partials.dropFirst(partials.count / 2).first)
        #expect(middle.isIncremental)
        #expect(middle.pixels[0, 0]?.a == 255)
        #expect(middle.pixels[0, middle.height - 1]?.a == 0)
        let expected = try JPEGCoder().decode(data, options: .init())
        #expect(final == expected)
        // Rows already shown do not change later.
        let shownRows = (0..<middle.height).prefix { middle.pixels[middle.width - 1, $0]?.a == 255 }.count
        #expect(shownRows > 0)
        let row = middle.pixels.bytesPerRow
        #expect(middle.pixels.bytes.prefix(row * (shownRows - 16)) == expected.pixels.bytes.prefix(row * (shownRows - 16)))
    }

    @Test("partial images follow the thumbnail size and orientation of the final one")
    func thumbnailAndOrientation() throws {
        let data = try Corpus.data("jpeg/exif-orientation/Portrait_6.jpg")
        let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 200, height: 200))
        let (partials, final) = try Self.feed(data, chunks: 6, options: options)
        let expected = try JPEGCoder().decode(data, options: options)
        #expect(final == expected)
        #expect(!partials.isEmpty)
        #expect(partials.allSatisfy { $0.width == expected.width && $0.height == expected.height && $0.orientation == .right })
    }

    @Test("arithmetic-coded files, which libjpeg cannot suspend in, load without partial errors")
    func arithmetic() throws {
        for path in ["jpeg/libjpeg-turbo/testimgari.jpg", "jpeg/jpegsuite/progressive_arithmetic/32x32x8_ycbcr.jpg"] {
            let data = try Corpus.data(path)
            let (_, final) = try Self.feed(data, chunks: 6)
            let expected = try JPEGCoder().decode(data, options: .init())
            #expect(final == expected, "\(path)")
        }
    }

    @Test("the pixel limit is enforced as soon as the header arrives")
    func pixelLimit() throws {
        let data = try Corpus.data("jpeg/sharp/giant-image.jpg")
        let decoder = JPEGCoder().makeIncrementalDecoder(options: .init())
        #expect {
            _ = try decoder.decode(data.prefix(4096), isComplete: false)
        } throws: { ($0 as? WebImageError)?.code == .imageTooLarge }
    }

    @Test("valid JPEGs fed in pieces never fail before the end and finish equal to one-shot")
    func validFilesInPieces() throws {
        let entries = Corpus.entries(format: "jpeg", expect: ["ok"])
            .filter { $0.bytes < 160_000 && !JPEGCoderTests.losslessOK.contains($0.path) }
        #expect(entries.count > 100)
        for (index, entry) in entries.enumerated() where index % 2 == 0 {
            let data = try entry.data()
            do {
                let (partials, final) = try Self.feed(data, chunks: 3 + index % 5)
                #expect(partials.allSatisfy { $0.isIncremental }, "\(entry)")
                let expected = try JPEGCoder().decode(data, options: .init())
                #expect(final == expected, "\(entry)")
            } catch {
                Issue.record("\(entry): \(error)")
            }
        }
    }

    @Test("every valid JPEG cut at several points never crashes, one-shot or incremental")
    func truncation() throws {
        let entries = Corpus.entries(format: "jpeg", expect: ["ok"]).filter { $0.bytes < 160_000 }
        #expect(entries.count > 100)
        // Every third file keeps the suite fast; the cut points differ per file.
        for (index, entry) in entries.enumerated() where index % 3 == 0 {
            let data = try entry.data()
            let decoder = JPEGCoder().makeIncrementalDecoder(options: .init())
            for fraction in [0.05, 0.3, 0.6, 0.9, 0.99] {
                let cut = data.prefix(Int(Double(data.count) * fraction) + index % 7)
                do { _ = try decoder.decode(cut, isComplete: false) } catch is WebImageError {} catch {
                    Issue.record("\(entry): \(error)")
                }
                // Typed throws: any failure is a WebImageError.
                _ = try? JPEGCoder().decode(cut, options: .init())
            }
        }
    }

    @Test("the manager picks the JPEG decoder for incremental loads")
    func manager() throws {
        let data = try Corpus.data("jpeg/libjpeg-turbo/testorig.jpg")
        #expect(ImageCodersManager.shared.canDecodeIncrementally(data))
        let decoder = ImageCodersManager.shared.makeIncrementalDecoder(options: .init())
        _ = try decoder.decode(data.prefix(data.count / 2), isComplete: false)
        let final = try decoder.decode(data, isComplete: true)
        #expect(final?.width == 227 && final?.height == 149)
    }
}
