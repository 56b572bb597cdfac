import Foundation
import Testing
import WebImageCodecs

/// BlurHash and ThumbHash against their reference implementations, run on the same
/// pixels: `Tests/Fixtures/info/reference.py hashes` (PyPI `blurhash` 1.1.5, halcy's
/// encoder of Wolt's algorithm, and `thumbhash-python` 1.0.1, a port of evanw's
/// `thumbhash.js`; both installed by `make test-venv`) writes the reference strings for a
/// raw RGBA file the test writes; the test compares them with ours.
///
/// The images avoid exact ties of ThumbHash's rounding (a coefficient of exactly 0 lands
/// on 7.5 and Python's `round` goes to even where JavaScript's goes up), so the reference
/// and the JavaScript original agree on them.
@Suite("BlurHash and ThumbHash against the PyPI reference packages")
struct PlaceholderReferenceTests {
    static let python = Fixtures.packageRoot.appendingPathComponent(".build-test/venv/bin/python")
    static let script = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/info/reference.py")

    /// A test image: its pixels from a formula of (x, y).
    struct Image: Sendable, CustomStringConvertible {
        let name: String
        let width: Int
        let height: Int
        let pixel: @Sendable (Int, Int) -> (Int, Int, Int, Int)
        var description: String { "\(name) \(width)×\(height)" }

        var buffer: PixelBuffer {
            var bytes = [UInt8]()
            bytes.reserveCapacity(width * height * 4)
            for y in 0..<height {
                for x in 0..<width {
                    let (r, g, b, a) = pixel(x, y)
                    bytes += [UInt8(r), UInt8(g), UInt8(b), UInt8(a)]
                }
            }
            return PixelBuffer(width: width, height: height, bytes: bytes) ?? PixelBuffer(width: 0, height: 0)
        }
    }

    static let images: [Image] = [
        Image(name: "gradient", width: 32, height: 32) { x, y in (8 * x, 8 * y, 128, 255) },
        Image(name: "landscape", width: 20, height: 12) { x, y in (255 * x / 19, 255 * (x + y) / 30, 255 - 255 * y / 11, 255) },
        Image(name: "alpha triangle", width: 16, height: 16) { x, y in (255, 16 * x, 16 * y, x + y < 16 ? 255 : 0) },
        Image(name: "waves, portrait", width: 12, height: 24) { x, y in
            (Int(127.5 + 127.5 * sin(0.7 * Double(x))), Int(127.5 + 127.5 * cos(0.4 * Double(y))), (x * y) % 256, 255)
        },
        Image(name: "noise", width: 37, height: 23) { x, y in
            // A fixed pseudo-random pattern (an integer hash of the position).
            var h = UInt32(truncatingIfNeeded: x &* 73_856_093 ^ y &* 19_349_663)
            h = (h ^ (h >> 13)) &* 0x5bd1_e995
            h ^= h >> 15
            return (Int(h & 0xFF), Int((h >> 8) & 0xFF), Int((h >> 16) & 0xFF), 255)
        },
        Image(name: "full size", width: 100, height: 61) { x, y in (min(255, 2 * x + y), 250 - 2 * y, (3 * x) % 256, 255) },
    ]

    struct Reference: Decodable {
        let blurhash: [String: String]
        let thumbhash: String
    }

    /// The reference packages' hashes of `image`.
    static func reference(_ image: Image) throws -> Reference {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-hashes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let raw = directory.appendingPathComponent("pixels.rgba")
        try Data(image.buffer.bytes).write(to: raw)
        let out = directory.appendingPathComponent("out.json")
        let process = Process()
        process.executableURL = python
        process.arguments = [script.path, "hashes", "\(image.width)", "\(image.height)", raw.path]
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "reference.py failed for \(image)"])
        }
        return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: out))
    }

    @Test("BlurHash and ThumbHash equal the references", arguments: images)
    func matchesReference(_ image: Image) throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.python.path), "run `make test-venv` first")
        let reference = try Self.reference(image)
        let pixels = image.buffer
        #expect(reference.blurhash.count == 4)
        for (components, expected) in reference.blurhash {
            let xy = components.split(separator: "x").compactMap { Int($0) }
            try #require(xy.count == 2)
            let ours = try BlurHash.encode(pixels, xComponents: xy[0], yComponents: xy[1])
            #expect(ours == expected, "\(image) BlurHash \(components)")
            #expect(ours.count == 4 + 2 * xy[0] * xy[1])
        }
        #expect(ThumbHash.hex(try ThumbHash.encode(pixels)) == reference.thumbhash, "\(image) ThumbHash")
    }

    @Test("ImageInfo hashes an upright thumbnail of at most 100×100 pixels")
    func thumbnailSize() throws {
        // Stored 1200×1800 with EXIF orientation 6: displayed 1800×1200.
        let data = try Data(contentsOf: Fixtures.corpus.appendingPathComponent("jpeg/exif-orientation/Landscape_6.jpg"))
        var options = ImageInfo.Options()
        options.blurHash = ImageInfo.Components(x: 4, y: 3)
        let info = try ImageInfo(data, options: options)
        let thumbnail = try #require(info.thumbnail)
        #expect(thumbnail.width == 100 && thumbnail.height == 67)
        #expect(info.blurHash == (try BlurHash.encode(thumbnail, xComponents: 4, yComponents: 3)))
    }

    @Test("Out-of-range input is an error, not a crash")
    func badInput() {
        let pixels = PixelBuffer(width: 4, height: 4)
        #expect(throws: WebImageError.self) { try BlurHash.encode(pixels, xComponents: 0, yComponents: 3) }
        #expect(throws: WebImageError.self) { try BlurHash.encode(pixels, xComponents: 10, yComponents: 3) }
        #expect(throws: WebImageError.self) { try BlurHash.encode(PixelBuffer(width: 0, height: 0), xComponents: 4, yComponents: 3) }
        #expect(throws: WebImageError.self) { try ThumbHash.encode(PixelBuffer(width: 101, height: 10)) }
        #expect(throws: WebImageError.self) { try ThumbHash.encode(PixelBuffer(width: 0, height: 0)) }
    }
}
