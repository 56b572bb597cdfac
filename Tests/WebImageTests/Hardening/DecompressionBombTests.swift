import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// Headers declaring far more pixels than the limit fail with `imageTooLarge` before any
/// pixel buffer is allocated, and a process decoding them stays small.
@Suite("Hardening: decompression bombs", .timeLimit(.minutes(3)))
struct DecompressionBombTests {
    static let bombs = BombFiles.all.map(\.name)

    static func data(_ name: String) throws -> Data {
        try #require(BombFiles.all.first { $0.name == name }?.data)
    }

    @Test("a synthesized bomb is recognised as its format", arguments: bombs)
    func sniffed(name: String) throws {
        let expected: ImageFormat = switch URL(fileURLWithPath: name).pathExtension {
        case "png": .png
        case "webp": .webp
        case "gif": .gif
        case "avif": .avif
        case "heic": .heic
        case "jxl": .jxl
        default: .jpeg
        }
        #expect(ImageFormat.detect(try Self.data(name)) == expected)
    }

    @Test("one-shot decode fails with imageTooLarge, thumbnail or not", arguments: bombs)
    func oneShot(name: String) throws {
        let data = try Self.data(name)
        for options in [ImageDecodeOptions(), ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))] {
            let error = try #require(throws: WebImageError.self) {
                try ImageCodersManager.shared.decode(data, options: options)
            }
            #expect(error.code == .imageTooLarge, "\(error)")
        }
    }

    @Test("the incremental decoder fails with imageTooLarge", arguments: bombs)
    func incremental(name: String) throws {
        let data = try Self.data(name)
        let decoder = ImageCodersManager.shared.makeIncrementalDecoder(options: .init())
        let error = try #require(throws: WebImageError.self) {
            for end in [data.count / 2, data.count] {
                _ = try decoder.decode(data.prefix(end), isComplete: end == data.count)
            }
        }
        #expect(error.code == .imageTooLarge, "\(error)")
    }

    @Test("the GIF frame bomb is only too large all together")
    func frameSum() throws {
        let data = BombFiles.gifFrames(width: 2000, height: 2000, frames: 26)
        let first = try ImageCodersManager.shared.decode(data, options: .init(firstFrameOnly: true))
        #expect(first.width == 2000 && first.frames.count == 1)
        let fewer = BombFiles.gifFrames(width: 200, height: 200, frames: 26)
        #expect(try ImageCodersManager.shared.decode(fewer, options: .init()).frames.count == 26)
    }

    @Test("a child process decoding each bomb peaks under 200 MB")
    func childPeakMemory() throws {
        let tool = WebImageTool.executable
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "build the webimage tool first")
        let dir = try TemporaryDirectory()
        var files = Corpus.entries.filter { $0.expect == "bomb" }.map(\.url.path)
        for bomb in BombFiles.all {
            let url = dir.url.appendingPathComponent(bomb.name)
            try bomb.data.write(to: url)
            files.append(url.path)
        }
        #expect(files.count >= 10)
        for file in files {
            let outcome = try ChildProcess.run(tool, ["decode", file, "--json"], in: dir.url)
            #expect(outcome.exitStatus == 1, "\(file): \(outcome)")
            #expect(outcome.output.contains("\"name\":\"imageTooLarge\""), "\(file): \(outcome.output)")
            #expect(outcome.peakVirtualBytes > 0, "\(file): the child's memory was never read from /proc")
            #expect(outcome.peakResidentBytes < 200 << 20,
                    "\(file): peak RSS \(outcome.peakResidentBytes >> 20) MB")
        }
        // The control: with the limit raised, the frame bomb really is one (26 canvases of 16 MB
        // when decoded whole, with --eager), and the meter sees it.
        let frameBomb = dir.url.appendingPathComponent("gif-frames-2000x2000x26.gif").path
        let allowed = try ChildProcess.run(
            tool, ["decode", frameBomb, "--max-pixels", "200000000", "--json", "--eager"], in: dir.url)
        #expect(allowed.exitStatus == 0, "\(allowed)")
        #expect(allowed.peakResidentBytes > 300 << 20, "peak RSS \(allowed.peakResidentBytes >> 20) MB")
    }
}
