import Foundation
import Testing
@testable import WebImageCodecs

/// The box scan every AVIF/HEIF container reader shares: hostile lengths end it cleanly.
@Suite("ISOBMFFBox: the bounds-checked box scan")
struct ISOBMFFBoxTests {
    /// A box of `type` around `body`, with a 32-bit size (or the given size field).
    static func box(_ type: String, _ body: [UInt8], size: UInt32? = nil) -> [UInt8] {
        let declared = size ?? UInt32(8 + body.count)
        return withUnsafeBytes(of: declared.bigEndian, Array.init) + Array(type.utf8) + body
    }

    static func scan(_ bytes: [UInt8]) -> (types: [String], stoppedEarly: Bool) {
        bytes.withUnsafeBytes { p in
            var boxes = ISOBMFFBox.boxes(p, in: 0..<p.count)
            var types: [String] = []
            while let box = boxes.next() {
                types.append(String(decoding: p[box.range.lowerBound + 4 ..< box.range.lowerBound + 8], as: UTF8.self))
            }
            return (types, boxes.stoppedEarly)
        }
    }

    @Test("32-bit, 64-bit and to-the-end sizes are read; the scan ends where the range does")
    func sizes() {
        let large = withUnsafeBytes(of: UInt32(1).bigEndian, Array.init) + Array("mdat".utf8)
            + withUnsafeBytes(of: UInt64(16 + 3).bigEndian, Array.init) + [1, 2, 3]
        let bytes = Self.box("ftyp", [0, 0, 0, 0]) + large + Self.box("free", [9, 9], size: 0)
        let result = Self.scan(bytes)
        #expect(result.types == ["ftyp", "mdat", "free"])
        #expect(!result.stoppedEarly)
        bytes.withUnsafeBytes { p in
            let boxes = Array(ISOBMFFBox.boxes(p, in: 0..<p.count))
            #expect(boxes[1].body == 28..<31, "the 64-bit size's header is 16 bytes")
            #expect(boxes[2].extendsToEnd && boxes[2].range.upperBound == p.count)
        }
    }

    @Test("a length past the container, below the header, or a cut header stops the scan and says so")
    func hostileLengths() {
        let first = Self.box("ftyp", [0, 0, 0, 0])
        for tail in [Self.box("meta", [1, 2], size: 4096), Self.box("meta", [1, 2], size: 7), Array(Self.box("meta", []).prefix(5)),
                     withUnsafeBytes(of: UInt32(1).bigEndian, Array.init) + Array("mdat".utf8) + [0xFF, 0, 0, 0, 0, 0, 0, 0]] {
            let result = Self.scan(first + tail)
            #expect(result.types == ["ftyp"])
            #expect(result.stoppedEarly)
        }
    }
}
