import Foundation

/// Small files whose headers declare enormous images: decompression bombs.
///
/// GIF and JPEG store each side in 16 bits, so their largest declarable image is
/// 65535×65535 (4.3 billion pixels); PNG and extended WebP can declare 100000×100000, and
/// so can an AVIF/HEIC `ispe` property (ISOBMFFBomb) and a JPEG XL size header (JXLSamples).
enum BombFiles {
    /// A PNG declaring `side`×`side` RGBA with one tiny (valid) IDAT and IEND.
    static func png(side: Int = 100_000) -> Data {
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        out += PNGSynth.chunk("IHDR", PNGSynth.ihdr(width: side, height: side, depth: 8, colorType: 6))
        out += PNGSynth.chunk("IDAT", PNGSynth.zlibStored([0, 0, 0, 0, 0]))
        out += PNGSynth.chunk("IEND", [])
        return out
    }

    /// An extended (VP8X) WebP whose canvas is `side`×`side`, followed by a 1×1 lossless image.
    static func webp(side: Int = 100_000) -> Data {
        var vp8x: [UInt8] = [0, 0, 0, 0]
        vp8x += le24(side - 1) + le24(side - 1)
        // A 1×1 VP8L bitstream: signature, 14-bit (width-1, height-1), no alpha, version 0, then
        // a few bytes of (not necessarily valid) image data.
        let vp8l: [UInt8] = [0x2F, 0, 0, 0, 0, 0x88, 0x88, 0x08, 0x00]
        var body = Array("WEBP".utf8)
        body += chunk("VP8X", vp8x) + chunk("VP8L", vp8l)
        return Data(Array("RIFF".utf8) + le32(body.count) + body)
    }

    /// A GIF whose logical screen is `width`×`height`, with one 1×1 image.
    static func gif(width: Int = 65535, height: Int = 65535) -> Data {
        gifFrames(width: width, height: height, frames: 1)
    }

    /// A GIF with a `width`×`height` screen and `frames` 1×1 images, each a few bytes:
    /// the composed animation is `width × height × frames` pixels.
    static func gifFrames(width: Int, height: Int, frames: Int) -> Data {
        var out = Array("GIF89a".utf8)
        out += le16(width) + le16(height) + [0x80, 0, 0]  // global colour table of 2 entries
        out += [0, 0, 0, 255, 255, 255]
        out += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        for _ in 0..<frames {
            out += [0x21, 0xF9, 4, 0x04, 10, 0, 0, 0]  // graphic control: keep, 0.1 s
            out += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0]  // image descriptor 1×1 at 0,0
            out += [2, 2, 0x4C, 0x01, 0]  // LZW min size 2: clear, index 1, end
        }
        out += [0x3B]
        return Data(out)
    }

    /// A baseline JPEG whose frame header declares `width`×`height` (grey, one component),
    /// with tables and the start of a scan but no real image data.
    static func jpeg(width: Int = 65535, height: Int = 65535) -> Data {
        var out: [UInt8] = [0xFF, 0xD8]
        // Quantisation table 0: all ones.
        out += [0xFF, 0xDB, 0, 67, 0] + [UInt8](repeating: 1, count: 64)
        // Start of frame 0: 8-bit, height, width, one component (id 1, 1x1 sampling, table 0).
        out += [0xFF, 0xC0, 0, 11, 8] + be16(height) + be16(width) + [1, 1, 0x11, 0]
        // Huffman tables: DC 0 and AC 0, each one code of length 1 for symbol 0.
        let oneCode: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0]
        out += [0xFF, 0xC4, 0, 20, 0x00] + oneCode
        out += [0xFF, 0xC4, 0, 20, 0x10] + oneCode
        out += [0xFF, 0xDA, 0, 8, 1, 1, 0x00, 0, 63, 0]
        out += [UInt8](repeating: 0, count: 64) + [0xFF, 0xD9]
        return Data(out)
    }

    /// Every synthesized bomb, by name.
    static var all: [(name: String, data: Data)] {
        [
            ("png-100000x100000.png", png()),
            ("webp-100000x100000.webp", webp()),
            ("gif-65535x65535.gif", gif()),
            ("jpeg-65535x65535.jpg", jpeg()),
            // 2000×2000 × 26 frames = 104 million pixels: over the limit only all together.
            ("gif-frames-2000x2000x26.gif", gifFrames(width: 2000, height: 2000, frames: 26)),
            ("avif-100000x100000.avif", ISOBMFFBomb.avif()),
            ("heic-100000x100000.heic", ISOBMFFBomb.heic()),
            ("jxl-100000x100000.jxl", JXLSamples.bomb()),
        ]
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        Array(type.utf8) + le32(data.count) + data + (data.count % 2 == 1 ? [0] : [])
    }

    private static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    private static func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    private static func le24(_ v: Int) -> [UInt8] { le16(v) + [UInt8((v >> 16) & 0xFF)] }
    private static func le32(_ v: Int) -> [UInt8] { le24(v) + [UInt8((v >> 24) & 0xFF)] }
}
