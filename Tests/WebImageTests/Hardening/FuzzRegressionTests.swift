#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// Replays the inputs fuzzing found (Regressions/) so the bugs they exposed stay fixed.
@Suite("Hardening: fuzzing regressions", .timeLimit(.minutes(2)))
struct FuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Regressions", isDirectory: true)

    /// The saved inputs, as `(target, file)`.
    static let inputs: [(target: String, url: URL)] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".bin") }.sorted().compactMap { name in
            guard let dash = name.firstIndex(of: "-") else { return nil }
            return (String(name[..<dash]), directory.appendingPathComponent(name))
        }
    }()

    /// Far above what replaying a small file needs, far below the gigabytes a header
    /// field can ask for.
    static let addressSpaceLimit = 1200 << 20

    /// Sanitizer runtimes reserve terabytes of shadow address space, so the limit means
    /// nothing there (this process is built like the tool beside it).
    static let isSanitizerBuild = (ChildProcess.highWaterKilobytes(of: getpid())?.virtual ?? 0) > 1 << 30

    static var fuzzTool: URL {
        WebImageTool.executable.deletingLastPathComponent().appendingPathComponent("WebImageFuzz")
    }

    @Test("every saved input replays through its fuzz target without crashing")
    func replayThroughTargets() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.fuzzTool.path), "build WebImageFuzz first")
        let dir = try TemporaryDirectory()
        for input in Self.inputs {
            let outcome = try ChildProcess.run(Self.fuzzTool, [input.target, input.url.path], in: dir.url)
            #expect(outcome.exitStatus == 0, "\(input.url.lastPathComponent): \(outcome)")
            // Some findings were allocations sized by a header field rather than crashes:
            // the address space shows them even when the pages were never touched.
            #expect(Self.isSanitizerBuild || outcome.peakVirtualBytes < Self.addressSpaceLimit,
                    "\(input.url.lastPathComponent): \(outcome.peakVirtualBytes >> 20) MB of address space")
        }
        // The replay tool itself works: every target takes a real image and a damaged one.
        let sample = Corpus.root.appendingPathComponent("png/pngsuite/basn6a08.png")
        let damaged = dir.url.appendingPathComponent("damaged.bin")
        var bytes = try Data(contentsOf: sample)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: damaged)
        let all = try ChildProcess.run(Self.fuzzTool, ["all", sample.path, damaged.path], in: dir.url)
        #expect(all.exitStatus == 0, "\(all)")
    }

    @Test("every saved input decodes or fails with a WebImageError in-process")
    func replayInProcess() throws {
        for input in Self.inputs {
            let data = try Data(contentsOf: input.url)
            do {
                let image = try ImageCodersManager.shared.decode(data, options: .init(maxPixelCount: 4_000_000))
                #expect(image.width > 0 && image.height > 0)
            } catch {
                // Typed throws make every failure a WebImageError; it must carry a message.
                #expect(!error.description.isEmpty, "\(input.url.lastPathComponent)")
            }
        }
    }
}
