import Foundation
import WebImageCodecs

/// Files of the repository's corpus (`Tests/Fixtures/corpus`), and decoding of answers.
enum Fixtures {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let corpus = packageRoot.appendingPathComponent("Tests/Fixtures/corpus")

    /// A 1800×1200 landscape JPEG (no EXIF rotation).
    static func landscapeJPEG() throws -> [UInt8] {
        Array(try Data(contentsOf: corpus.appendingPathComponent("jpeg/exif-orientation/Landscape_1.jpg")))
    }

    /// A 100×100 GIF with 4 frames.
    static func animatedGIF() throws -> [UInt8] {
        Array(try Data(contentsOf: corpus.appendingPathComponent("gif/gif-test-suite/animated_loop.gif")))
    }

    /// A PNG whose header declares `side`×`side` pixels (a decompression bomb: a few
    /// bytes of compressed zeros claim billions of pixels).
    static func pngBomb(side: Int = 100_000) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be32(data.count) + body + be32(Int(crc32(body)))
        }
        let header = be32(side) + be32(side) + [8, 6, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
            + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
    }

    /// CRC-32 (IEEE), as PNG chunks carry it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// Decodes an answer's body.
    static func decode(_ body: Data) throws -> DecodedImage {
        try ImageCodersManager.shared.decode(body, options: ImageDecodeOptions())
    }
}
