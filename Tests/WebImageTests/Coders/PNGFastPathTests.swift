import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// The PNG fast path (libdeflate and the shim's own unfiltering, see `PNGStillDecoder`)
/// against libpng: every corpus PNG decodes to the same pixels, or fails with the same
/// error, both ways; synthetic files cover each filter type, colour type and IDAT layout;
/// a few files are checked against Pillow, a decoder nobody here wrote.
@Suite("PNG fast path: bit-identical to libpng", .timeLimit(.minutes(3)))
struct PNGFastPathTests {
    /// Every PNG of the corpus and of the generated fixtures (APNGs decode their default image).
    static let files: [URL] = {
        let roots = [Corpus.root.appendingPathComponent("png"), Corpus.root.deletingLastPathComponent().appendingPathComponent("generated")]
        var out: [URL] = []
        for root in roots {
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where ["png", "apng"].contains(url.pathExtension.lowercased()) {
                out.append(url)
            }
        }
        return out.sorted { $0.path < $1.path }
    }()

    enum Outcome: Equatable {
        case pixels(PixelBuffer)
        case failure(String)
    }

    static func decode(_ data: Data, fastPath: Bool, resampleTo: PixelSize? = nil) -> Outcome {
        do {
            return .pixels(try data.withUnsafeBytes { p in
                try PNGStillDecoder.decode(p, checkSize: { w, h in
                    if w * h > 64 << 20 { throw WebImageError.imageTooLarge("test limit") }
                }, resampledSize: { _ in resampleTo }, fastPath: fastPath)
            })
        } catch {
            return .failure("\(error)")
        }
    }

    static func takesFastPath(_ data: Data) -> Bool {
        data.withUnsafeBytes { PNGStillDecoder.takesFastPath($0) }
    }

    @Test("every corpus PNG decodes the same with and without the fast path, whole and in strips")
    func corpusBothWays() throws {
        #expect(Self.files.count > 200)
        var fast = 0
        for url in Self.files {
            let data = try Data(contentsOf: url)
            let name = url.path.replacingOccurrences(of: Corpus.root.path, with: "")
            if Self.takesFastPath(data) { fast += 1 }
            let reference = Self.decode(data, fastPath: false)
            #expect(Self.decode(data, fastPath: true) == reference, "\(name)")
            // The strip path: straight to a smaller size.
            if case .pixels(let whole) = reference, whole.width > 1, whole.height > 1 {
                let half = PixelSize(width: (whole.width + 1) / 2, height: (whole.height + 1) / 2)
                #expect(Self.decode(data, fastPath: true, resampleTo: half)
                        == Self.decode(data, fastPath: false, resampleTo: half), "\(name), resampled")
            }
        }
        // Most of the corpus is 8-bit and not interlaced: the comparison exercises the path.
        #expect(fast > 80, "\(fast) files took the fast path")
    }

    /// A width×height image of random filtered rows: every filter type (row y uses y % 5),
    /// random sample bytes, split over `idatCount` IDAT chunks (some empty).
    static func synthetic(width: Int, height: Int, colorType: UInt8, seed: UInt32 = 1, idatCount: Int = 1,
                          palette: Int = 256, alphas: Int = 0, filter: ((Int) -> UInt8)? = nil,
                          tweakStream: (inout [UInt8]) -> Void = { _ in }, tail: Data = Data()) -> Data {
        let channels: Int = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType] ?? 1
        var state = seed
        func next() -> UInt8 {
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(filter?(y) ?? UInt8(y % 5))
            for _ in 0..<(width * channels) { raw.append(next()) }
        }
        var stream = PNGSynth.zlibStored(raw)
        tweakStream(&stream)
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        out += PNGSynth.chunk("IHDR", PNGSynth.ihdr(width: width, height: height, depth: 8, colorType: colorType))
        if colorType == 3 {
            out += PNGSynth.chunk("PLTE", (0..<(palette * 3)).map { _ in next() })
            if alphas > 0 { out += PNGSynth.chunk("tRNS", (0..<alphas).map { _ in next() }) }
        }
        let piece = max(1, stream.count / max(1, idatCount - 1))
        var offset = 0
        for index in 0..<idatCount {
            let end = index == idatCount - 1 ? stream.count : min(stream.count, offset + (index % 3 == 1 ? 0 : piece))
            out += PNGSynth.chunk("IDAT", Array(stream[offset..<end]))
            offset = end
        }
        out += tail
        out += PNGSynth.chunk("IEND", [])
        return out
    }

    @Test("every filter type and colour type, one IDAT or many, matches libpng",
          arguments: [(UInt8(0), 1), (UInt8(2), 1), (UInt8(4), 3), (UInt8(6), 1), (UInt8(6), 7), (UInt8(3), 1)])
    func syntheticBothWays(colorType: UInt8, idatCount: Int) throws {
        for (width, height) in [(1, 1), (1, 9), (7, 5), (64, 33), (301, 12)] {
            let data = Self.synthetic(width: width, height: height, colorType: colorType, seed: UInt32(width * 31 + height),
                                      idatCount: idatCount)
            #expect(Self.takesFastPath(data), "\(width)x\(height) type \(colorType)")
            let reference = Self.decode(data, fastPath: false)
            guard case .pixels = reference else {
                Issue.record("libpng failed on \(width)x\(height) type \(colorType): \(reference)")
                continue
            }
            #expect(Self.decode(data, fastPath: true) == reference, "\(width)x\(height) type \(colorType)")
        }
    }

    @Test("palettes: a short PLTE, tRNS shorter than PLTE, indices past both")
    func palettes() throws {
        for (palette, alphas) in [(1, 0), (5, 3), (200, 200), (256, 17), (16, 1)] {
            let data = Self.synthetic(width: 40, height: 10, colorType: 3, seed: UInt32(palette), palette: palette, alphas: alphas)
            #expect(Self.takesFastPath(data))
            let reference = Self.decode(data, fastPath: false)
            guard case .pixels = reference else {
                Issue.record("libpng failed with \(palette) colours, \(alphas) alphas: \(reference)")
                continue
            }
            #expect(Self.decode(data, fastPath: true) == reference, "\(palette) colours, \(alphas) alphas")
        }
    }

    /// Files whose chunks are sound but whose image data is not; libpng fails on each.
    static func corruptImageData() throws -> [(String, Data)] {
        var out: [(String, Data)] = []
        // A bad filter byte on the fourth row.
        out.append(("filter type 5", synthetic(width: 9, height: 6, colorType: 2, filter: { $0 == 3 ? 5 : 1 })))
        // The stream ten bytes short of the last row (its Adler-32 no longer matches either).
        out.append(("a short stream", synthetic(width: 9, height: 6, colorType: 6, tweakStream: { s in
            s.removeSubrange((s.count - 4 - 10)..<(s.count - 4))
            s[3] = UInt8((Int(s[3]) + 246) & 0xFF)  // LEN of the single stored block, minus 10
            s[5] = ~s[3]
        })))
        // Truncated deflate data.
        out.append(("truncated deflate", synthetic(width: 9, height: 6, colorType: 0, tweakStream: { s in s.removeLast(20) })))
        // A wrong IDAT CRC.
        var badCRC = synthetic(width: 9, height: 6, colorType: 2)
        let idat = try #require(badCRC.range(of: Data("IDAT".utf8))).lowerBound
        let length = Int(badCRC[idat - 4]) << 24 | Int(badCRC[idat - 3]) << 16 | Int(badCRC[idat - 2]) << 8 | Int(badCRC[idat - 1])
        badCRC[idat + 4 + length] ^= 0x55
        out.append(("a bad IDAT CRC", badCRC))
        return out
    }

    @Test("faults in the image data give libpng's outcome: a clear error, never a crash")
    func faults() throws {
        func check(_ data: Data, _ what: String, fails: Bool) {
            #expect(!Self.takesFastPath(data), "\(what): the fast path should refuse it")
            let fast = Self.decode(data, fastPath: true)
            #expect(fast == Self.decode(data, fastPath: false), "\(what)")
            if fails {
                guard case .failure(let message) = fast else {
                    Issue.record("\(what) decoded")
                    return
                }
                #expect(message.contains("PNG"), "\(what): \(message)")
            }
            // Through the coder too: a WebImageError or an image, nothing else.
            do {
                _ = try PNGCoder().decode(data, options: .init())
                #expect(!fails, "\(what) decoded through PNGCoder")
            } catch {
                #expect(error.code == .badImageData, "\(what): \(error)")
            }
        }
        for (what, data) in try Self.corruptImageData() {
            check(data, what, fails: true)
        }
        // A wrong Adler-32, and more data than the rows need: libpng's outcome, whichever it is.
        check(Self.synthetic(width: 9, height: 6, colorType: 2, tweakStream: { s in s[s.count - 1] ^= 1 }), "a bad Adler-32", fails: false)
        check(Self.synthetic(width: 9, height: 6, colorType: 2, tweakStream: { s in
            // The rows' block made not final, then a final stored block of four more bytes.
            s[2] = 0
            s.insert(contentsOf: [1, 4, 0, 0xFB, 0xFF, 1, 2, 3, 4], at: s.count - 4)
        }), "a stream longer than the image", fails: false)
        // An unknown critical chunk after the image data (libpng lets it pass there).
        check(Self.synthetic(width: 9, height: 6, colorType: 2, tail: PNGSynth.chunk("ABCD", [1, 2])), "a critical chunk after IDAT", fails: false)
    }

    @Test("a few fast-path files equal Pillow's decode",
          .enabled(if: FileManager.default.isExecutableFile(atPath: pillowPython.path), "needs the test venv (make test-venv)"))
    func againstPillow() throws {
        let names = ["pngsuite/basn0g08.png", "pngsuite/basn2c08.png", "pngsuite/basn3p08.png", "pngsuite/basn4a08.png",
                     "pngsuite/basn6a08.png", "pngsuite/tbbn3p08.png", "pngsuite/f04n2c08.png", "wuffs/hippopotamus.regular.png",
                     "large/harvesters.png"]
        let directory = try TemporaryDirectory()
        for name in names {
            let data = try Corpus.data("png/" + name)
            #expect(Self.takesFastPath(data), "\(name)")
            guard case .pixels(let ours) = Self.decode(data, fastPath: true) else {
                Issue.record("\(name) failed")
                continue
            }
            let out = directory.url.appendingPathComponent("pillow.rgba")
            let script = "import sys; from PIL import Image; open(sys.argv[2], 'wb').write(Image.open(sys.argv[1]).convert('RGBA').tobytes())"
            let process = Process()
            process.executableURL = Self.pillowPython
            process.arguments = ["-c", script, Corpus.root.appendingPathComponent("png/" + name).path, out.path]
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "\(name): Pillow failed")
            #expect(Array(try Data(contentsOf: out)) == ours.bytes, "\(name)")
        }
    }

    static let pillowPython = Corpus.packageRoot.appendingPathComponent(".build-test/venv/bin/python")
}
