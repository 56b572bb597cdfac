import CGIF
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// The Swift LZW decoder on its own: ordinary files against their full decode, wide codes,
/// and the verdicts on damaged streams.
@Suite("GIF LZW decoder", .timeLimit(.minutes(1)))
struct GIFLZWDecoderTests {
    /// Offset of the first image descriptor (just after its `,`) in a GIF without local tricks.
    static func firstDescriptor(_ bytes: [UInt8]) throws -> Int {
        var i = 13
        if bytes[10] & 0x80 != 0 { i += 3 * (2 << Int(bytes[10] & 7)) }
        while i < bytes.count {
            switch bytes[i] {
            case 0x2C:
                return i + 1
            case 0x21:
                i += 2
                while bytes[i] != 0 { i += Int(bytes[i]) + 1 }
                i += 1
            default:
                throw WebImageError.badImageData("unexpected byte \(bytes[i]) at \(i)")
            }
        }
        throw WebImageError.badImageData("no image")
    }

    @Test("Gives the palette indices giflib gives", arguments: [
        "gif/pygif/4095-codes.gif", "gif/pygif/4095-codes-clear.gif", "gif/pygif/255-codes.gif",
        "gif/wuffs/hippopotamus.regular.gif", "gif/image-gif/interlaced.gif", "gif/pygif/many-clears.gif",
    ])
    func matchesGiflib(_ path: String) throws {
        let data = try Corpus.data(path)
        // The reference: giflib's own LZW decode of the first image (DGifSlurp, de-interlaced).
        let reader = GIFDataReader(data)
        let gif = try reader.open()
        defer { var error: Int32 = 0; DGifCloseFile(gif, &error) }
        try #require(DGifSlurp(gif) == GIF_OK)
        let saved = try #require(gif.pointee.SavedImages).pointee
        let width = Int(saved.ImageDesc.Width), height = Int(saved.ImageDesc.Height)
        let expected = Array(UnsafeBufferPointer(start: saved.RasterBits, count: width * height))

        let bytes = [UInt8](data)
        let d = try Self.firstDescriptor(bytes)
        let flags = bytes[d + 8]
        let codeSizeAt = d + 9 + (flags & 0x80 != 0 ? 3 * (2 << Int(flags & 7)) : 0)
        let lzw = GIFLZWDecoder()
        let outcome = bytes.withUnsafeBufferPointer {
            lzw.decode($0, from: codeSizeAt + 1, minimumCodeSize: Int(bytes[codeSizeAt]),
                       pixelCount: width * height, checksTrailingCodes: true)
        }
        guard case .ended(_, let pixels) = outcome else { Issue.record("\(outcome)"); return }
        #expect(pixels == width * height)
        // Ours come in stream order; an interlaced image sends rows 0, 8, …, then 4, 12, …
        let rows = flags & 0x40 == 0 ? Array(0..<height)
            : [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { Array(stride(from: $0.0, to: height, by: $0.1)) }
        var ours = [UInt8](repeating: 0, count: width * height)
        let decoded = Array(lzw.indices.prefix(width * height))
        for (streamRow, row) in rows.enumerated() {
            let from: Int = streamRow * width, to: Int = row * width
            ours.replaceSubrange(to..<(to + width), with: decoded[from..<(from + width)])
        }
        // Counted rather than compared whole, so a failure prints a number, not a megabyte.
        let differing = zip(ours, expected).filter { $0 != $1 }.count
        #expect(ours.count == expected.count && differing == 0, "\(differing) of \(expected.count) indices differ")
    }

    @Test("A file with 11-bit minimum code size decodes to its 16-colour picture")
    func wideCodes() throws {
        let image = try GIFCoder().decode(try Corpus.data("gif/pygif/max-codes.gif"), options: ImageDecodeOptions())
        #expect(image.width == 100 && image.height == 100)
        #expect(!image.pixels.hasAlpha)
        let distinct = Set(stride(from: 0, to: image.pixels.bytes.count, by: 4).map { image.pixels.bytes[$0..<$0 + 3].map { $0 } })
        #expect(distinct.count > 1 && distinct.count <= 16)
    }

    /// Runs `stream` (sub-blocks from offset 0, code size 2) for `pixels` indices.
    private static func run(_ stream: [UInt8], pixels: Int, checksTrailingCodes: Bool = true) -> GIFLZWDecoder.Outcome {
        stream.withUnsafeBufferPointer {
            GIFLZWDecoder().decode($0, from: 0, minimumCodeSize: 2, pixelCount: pixels,
                                   checksTrailingCodes: checksTrailingCodes)
        }
    }

    @Test("Invalid codes and truncation are reported, never read out of bounds")
    func damaged() {
        // Code size 2 (3-bit codes): clear (4), then code 7 with nothing defined yet.
        #expect(Self.run([0x01, 0b0011_1100, 0x00], pixels: 4) == .corrupt(end: 3))
        #expect(Self.run([0x05, 0x84], pixels: 4) == .truncated)
    }

    @Test("Codes after the last pixel are checked unless asked not to")
    func trailingCodes() {
        // clear (4), literal 1, then code 7 (undefined: only 6 is next): bits, low first,
        // 100 001 111 -> 0b1_1110_0100 = 0xCC 0x01... packed below.
        let stream: [UInt8] = [0x02, 0b1100_1100, 0b0000_0001, 0x00]
        #expect(Self.run(stream, pixels: 1) == .corrupt(end: 4))
        #expect(Self.run(stream, pixels: 1, checksTrailingCodes: false) == .ended(end: 4, pixels: 1))
    }

    @Test("A stream that ends early reports how many indices it produced")
    func shortStream() {
        // clear (4), literal 1, literal 2, end (5): 100 001 010 101.
        let stream: [UInt8] = [0x02, 0b1000_1100, 0b0000_1010, 0x00]
        #expect(Self.run(stream, pixels: 4) == .ended(end: 4, pixels: 2))
    }
}
