import Foundation

/// Builds small PNG and APNG files byte by byte (stored deflate blocks), so tests know
/// every pixel of the source exactly.
enum PNGSynth {
    /// One APNG frame: its rectangle, ops and rows of 8-bit RGBA.
    struct Frame {
        var x = 0, y = 0, width: Int, height: Int
        var delayNum: UInt16 = 1, delayDen: UInt16 = 10
        var dispose: UInt8 = 0, blend: UInt8 = 0
        var rgba: [UInt8]
    }

    /// A PNG of `width`×`height` with color type `colorType` and `depth`; `samples` are the
    /// unfiltered scanlines without filter bytes.
    static func png(width: Int, height: Int, depth: UInt8, colorType: UInt8, samples: [UInt8]) -> Data {
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        out += chunk("IHDR", ihdr(width: width, height: height, depth: depth, colorType: colorType))
        out += chunk("IDAT", zlibStored(scanlines(samples, rows: height)))
        out += chunk("IEND", [])
        return out
    }

    /// An RGBA APNG. The first frame is the default image (its fcTL comes before IDAT)
    /// unless `hiddenDefault` is given, which is then stored as a default image outside the animation.
    static func apng(width: Int, height: Int, plays: UInt32, frames: [Frame], hiddenDefault: [UInt8]? = nil) -> Data {
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        out += chunk("IHDR", ihdr(width: width, height: height, depth: 8, colorType: 6))
        out += chunk("acTL", be32(UInt32(frames.count)) + be32(plays))
        var sequence: UInt32 = 0
        for (index, frame) in frames.enumerated() {
            if index == 0, let hiddenDefault {
                out += chunk("IDAT", zlibStored(scanlines(hiddenDefault, rows: height)))
            }
            var fctl = be32(sequence) + be32(UInt32(frame.width)) + be32(UInt32(frame.height))
            fctl += be32(UInt32(frame.x)) + be32(UInt32(frame.y))
            fctl += [UInt8(frame.delayNum >> 8), UInt8(frame.delayNum & 0xFF)]
            fctl += [UInt8(frame.delayDen >> 8), UInt8(frame.delayDen & 0xFF), frame.dispose, frame.blend]
            out += chunk("fcTL", fctl)
            sequence += 1
            let data = zlibStored(scanlines(frame.rgba, rows: frame.height))
            if index == 0 && hiddenDefault == nil {
                out += chunk("IDAT", data)
            } else {
                out += chunk("fdAT", be32(sequence) + data)
                sequence += 1
            }
        }
        out += chunk("IEND", [])
        return out
    }

    /// `count` copies of one pixel's bytes.
    static func fill(_ pixel: [UInt8], count: Int) -> [UInt8] {
        var out: [UInt8] = []
        for _ in 0..<count { out += pixel }
        return out
    }

    static func ihdr(width: Int, height: Int, depth: UInt8, colorType: UInt8) -> [UInt8] {
        be32(UInt32(width)) + be32(UInt32(height)) + [depth, colorType, 0, 0, 0]
    }

    /// Prefixes each row with filter type 0.
    static func scanlines(_ samples: [UInt8], rows: Int) -> [UInt8] {
        let rowBytes = samples.count / rows
        var out: [UInt8] = []
        for row in 0..<rows { out += [0] + samples[(row * rowBytes)..<((row + 1) * rowBytes)] }
        return out
    }

    static func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, bytes.count - offset)
            let final: UInt8 = offset + n == bytes.count ? 1 : 0
            out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += bytes[offset..<(offset + n)]
            offset += n
        } while offset < bytes.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + be32(b << 16 | a)
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> Data {
        let body = Array(type.utf8) + data
        return Data(be32(UInt32(data.count)) + body + be32(crc32(body)))
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}
