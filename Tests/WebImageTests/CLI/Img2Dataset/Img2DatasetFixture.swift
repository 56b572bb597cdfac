import Foundation
import Testing
import WebImageCodecs

/// Helpers of the `webimage img2dataset` tests, written from the formats' documentation, not
/// from our code: a TFRecord reader (framing and masked CRC-32C per TensorFlow's
/// `tfrecord` format notes, `tf.train.Example` per its `.proto`), a JPEG with an EXIF block
/// laid out by hand (TIFF 6.0 / EXIF 2.32), and the venv's Python.
enum Img2DatasetFixture {
    static let python = Corpus.packageRoot.appendingPathComponent(".build-test/venv/bin/python")

    // MARK: TFRecord

    /// CRC-32C computed bit by bit (polynomial 0x1EDC6F41, reflected 0x82F63B78).
    static func crc32c(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0x82F6_3B78 : 0) }
        }
        return ~crc
    }

    /// TFRecord's mask: `((crc >> 15) | (crc << 17)) + 0xa282ead8`.
    static func masked(_ bytes: [UInt8]) -> UInt32 {
        let crc = crc32c(bytes)
        return ((crc >> 15) | (crc << 17)) &+ 0xA282_EAD8
    }

    struct FormatError: Error, CustomStringConvertible { var description: String }

    /// The records of a TFRecord file; throws on a bad length or data CRC or a cut record.
    static func records(_ data: Data) throws -> [[UInt8]] {
        let bytes = [UInt8](data)
        var records: [[UInt8]] = []
        var i = 0
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
        while i < bytes.count {
            guard i + 12 <= bytes.count else { throw FormatError(description: "cut header at \(i)") }
            let lengthBytes = Array(bytes[i..<(i + 8)])
            let length = Int((0..<8).reduce(UInt64(0)) { $0 | UInt64(lengthBytes[$1]) << (8 * $1) })
            guard u32(i + 8) == masked(lengthBytes) else { throw FormatError(description: "bad length CRC at \(i)") }
            let start = i + 12
            guard start + length + 4 <= bytes.count else { throw FormatError(description: "cut record at \(i)") }
            let record = Array(bytes[start..<(start + length)])
            guard u32(start + length) == masked(record) else { throw FormatError(description: "bad data CRC at \(i)") }
            records.append(record)
            i = start + length + 4
        }
        return records
    }

    /// One decoded feature.
    enum Feature: Equatable {
        case bytes([[UInt8]])
        case floats([Float])
        case ints([Int64])

        var text: String? {
            if case .bytes(let values) = self, values.count == 1 { return String(decoding: values[0], as: UTF8.self) }
            return nil
        }
    }

    /// The features of a serialized `tf.train.Example`.
    static func example(_ bytes: [UInt8]) throws -> [String: Feature] {
        var features: [String: Feature] = [:]
        for (field, value) in try fields(bytes) where field == 1 {
            for (entryField, entry) in try fields(value) where entryField == 1 {
                var name = ""
                var feature: Feature?
                for (f, v) in try fields(entry) {
                    if f == 1 { name = String(decoding: v, as: UTF8.self) }
                    if f == 2 { feature = try decodeFeature(v) }
                }
                features[name] = feature
            }
        }
        return features
    }

    private static func decodeFeature(_ bytes: [UInt8]) throws -> Feature? {
        for (kind, list) in try fields(bytes) {
            let values = try fields(list).filter { $0.0 == 1 }.map(\.1)
            switch kind {
            case 1: return .bytes(values)
            case 2:
                let packed = values.flatMap { $0 }
                return .floats(stride(from: 0, to: packed.count - 3, by: 4).map { at in
                    Float(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(packed[at + $1]) << (8 * $1) })
                })
            case 3:
                var out: [Int64] = []
                for packed in values {
                    var i = 0
                    while i < packed.count { out.append(Int64(bitPattern: try varint(packed, &i))) }
                }
                return .ints(out)
            default: continue
            }
        }
        return nil
    }

    /// The length-delimited fields of a message (other wire types are skipped), in order.
    static func fields(_ bytes: [UInt8]) throws -> [(Int, [UInt8])] {
        var out: [(Int, [UInt8])] = []
        var i = 0
        while i < bytes.count {
            let key = try varint(bytes, &i)
            switch key & 7 {
            case 0: _ = try varint(bytes, &i)
            case 1: i += 8
            case 5: i += 4
            case 2:
                let length = Int(try varint(bytes, &i))
                guard i + length <= bytes.count else { throw FormatError(description: "field past the end") }
                out.append((Int(key >> 3), Array(bytes[i..<(i + length)])))
                i += length
            default: throw FormatError(description: "wire type \(key & 7)")
            }
        }
        return out
    }

    private static func varint(_ bytes: [UInt8], _ i: inout Int) throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard i < bytes.count, shift < 64 else { throw FormatError(description: "bad varint") }
            let byte = bytes[i]
            i += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    // MARK: EXIF

    /// A 64×48 JPEG whose APP1 EXIF block (big-endian TIFF) holds, in IFD0, Make `TestCam`,
    /// Orientation 6, XResolution 72/1, ResolutionUnit 2 and the EXIF IFD pointer; in the
    /// EXIF IFD, ExposureTime 10/1000, ISOSpeedRatings 200 and DateTimeOriginal.
    static func jpegWithEXIF() throws -> [UInt8] {
        var pixels = PixelBuffer(width: 64, height: 48)
        pixels.withUnsafeMutableBytes { p in
            for i in stride(from: 0, to: p.count, by: 4) { (p[i], p[i + 1], p[i + 2], p[i + 3]) = (200, 100, 50, 255) }
        }
        let jpeg = [UInt8](try ImageCodersManager.shared.encode(DecodedImage(pixels: pixels, format: .jpeg), as: .jpeg,
                                                                options: ImageEncodeOptions(quality: 0.9)))
        var tiff: [UInt8] = Array("MM".utf8) + [0, 0x2A, 0, 0, 0, 8]
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        // IFD0 at 8 (5 entries: 66 bytes), its data at 74: Make (8), XResolution (8); EXIF IFD at 90
        // (3 entries: 42 bytes), its data at 132: ExposureTime (8), DateTimeOriginal (20).
        tiff += u16(5)
        tiff += entry(0x010F, 2, 8, u32(74)) + entry(0x0112, 3, 1, u16(6)) + entry(0x011A, 5, 1, u32(82))
        tiff += entry(0x0128, 3, 1, u16(2)) + entry(0x8769, 4, 1, u32(90)) + u32(0)
        tiff += Array("TestCam".utf8) + [0] + u32(72) + u32(1)
        tiff += u16(3)
        tiff += entry(0x829A, 5, 1, u32(132)) + entry(0x8827, 3, 1, u16(200)) + entry(0x9003, 2, 20, u32(140)) + u32(0)
        tiff += u32(10) + u32(1000) + Array("2024:01:02 03:04:05".utf8) + [0]
        let app1 = [0xFF, 0xE1] + u16(2 + 6 + tiff.count) + Array("Exif".utf8) + [0, 0] + tiff
        return Array(jpeg.prefix(2)) + app1 + Array(jpeg.dropFirst(2))
    }

    /// What exifread prints for ``jpegWithEXIF()``'s tags, by its documented forms: text as
    /// stored, enumerations by name, rationals in lowest terms (an integer when whole).
    static let expectedEXIF: [String: String] = [
        "Image Make": "TestCam", "Image Orientation": "Rotated 90 CW", "Image XResolution": "72",
        "Image ResolutionUnit": "Pixels/Inch", "EXIF ExposureTime": "1/100", "EXIF ISOSpeedRatings": "200",
        "EXIF DateTimeOriginal": "2024:01:02 03:04:05",
    ]

    /// Runs the venv's Python on `script` with `arguments`; its stdout, or nil without the venv.
    static func runPython(_ script: String, _ arguments: [String], in work: TemporaryDirectory) async throws -> String? {
        guard FileManager.default.isExecutableFile(atPath: python.path) else { return nil }
        let scriptPath = try DatasetFixture.write(script, "script-\(UUID().uuidString).py", in: work)
        let output = work.url.appendingPathComponent("python-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = python
        process.arguments = [scriptPath] + arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                c.resume()
            }
        }
        guard process.terminationStatus == 0 else { return nil }
        return try String(contentsOf: output, encoding: .utf8)
    }
}
