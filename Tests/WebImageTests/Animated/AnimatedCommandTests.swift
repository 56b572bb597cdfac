import Foundation
import Testing
@testable import WebImageCodecs

/// `webimage decode` and `show --animate` on animations: frame by frame, nothing kept.
@Suite("webimage on animations", .timeLimit(.minutes(1)))
struct AnimatedCommandTests {
    static func path(_ corpus: String) -> String { Corpus.root.appendingPathComponent(corpus).path }

    @Test("decode --json reports frames, loop count and every duration of an animation")
    func json() async throws {
        let file = Self.path("gif/image-gif/gifplayer-muybridge.gif")
        let run = try await WebImageTool.run(["decode", file, "--json"])
        #expect(run.status == 0, "\(run.err)")
        let object = try #require(try run.jsonLines().first)
        #expect(object["frames"] as? Int == 380 && object["loopCount"] as? Int == 0)
        #expect(object["width"] as? Int == 472 && object["height"] as? Int == 298)
        let durations = try #require(object["durations"] as? [Double])
        let eager = try GIFCoder().decode(try Data(contentsOf: URL(fileURLWithPath: file)), options: .init())
        #expect(durations.count == 380)
        #expect(zip(durations, eager.frames).allSatisfy { abs($0 - $1.duration) < 0.0005 })
        #expect(object["truncated"] == nil)
    }

    @Test("decode --all-frames --out DIR writes every frame as a PNG equal to the eager decoder's")
    func allFrames() async throws {
        let directory = try TemporaryDirectory()
        let out = directory.url.appendingPathComponent("frames")
        for corpus in ["gif/wuffs/animated-red-blue.gif", "png/wuffs/animated-red-blue.apng", "webp/image-rs/anim.webp"] {
            let file = Self.path(corpus)
            try? FileManager.default.removeItem(at: out)
            let run = try await WebImageTool.run(["decode", file, "--all-frames", "--out", out.path, "--json"])
            #expect(run.status == 0, "\(run.err)")
            let eager = try ImageCodersManager.shared.decode(try Data(contentsOf: URL(fileURLWithPath: file)), options: .init())
            let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
            #expect(names == (0..<eager.frames.count).map { String(format: "frame-%04d.png", $0) }, "\(corpus)")
            for (index, name) in names.enumerated() {
                let png = try PNGCoder().decode(try Data(contentsOf: out.appendingPathComponent(name)), options: .init())
                #expect(png.pixels == eager.frames[index].pixels, "\(corpus) \(name)")
            }
        }
        // A still writes its one frame.
        try? FileManager.default.removeItem(at: out)
        let still = try await WebImageTool.run(["decode", Self.path("gif/pygif/depth8.gif"), "--all-frames", "--out", out.path])
        #expect(still.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["frame-0000.png"])
    }

    @Test("A cut-short animation decodes its complete frames and says it is truncated")
    func truncated() async throws {
        let directory = try TemporaryDirectory()
        let cut = directory.url.appendingPathComponent("cut.gif")
        let full = try Data(contentsOf: URL(fileURLWithPath: Self.path("gif/image-gif/moon_impact.gif")))
        try full.prefix(full.count / 2).write(to: cut)
        let run = try await WebImageTool.run(["decode", cut.path, "--json"])
        #expect(run.status == 0, "\(run.err)")
        let object = try #require(try run.jsonLines().first)
        #expect(object["truncated"] as? Bool == true)
        let frames = try #require(object["frames"] as? Int)
        #expect(frames > 0 && frames < 14)
        #expect((object["durations"] as? [Double])?.count == frames)
    }

    @Test("Usage: --all-frames needs --out and excludes --eager; --eager keeps the whole-image decode")
    func usage() async throws {
        let file = Self.path("gif/wuffs/animated-red-blue.gif")
        #expect(try await WebImageTool.run(["decode", file, "--all-frames"]).status == 2)
        #expect(try await WebImageTool.run(["decode", file, "--all-frames", "--eager", "--out", "/tmp/x"]).status == 2)
        let eager = try await WebImageTool.run(["decode", file, "--eager", "--json"])
        #expect(eager.status == 0)
        let object = try #require(try eager.jsonLines().first)
        #expect(object["frames"] as? Int == 4 && object["durations"] == nil)
    }

    @Test("show --animate plays through the player: every frame drawn in place for one loop")
    func show() async throws {
        let run = try await WebImageTool.run(["show", Self.path("gif/wuffs/animated-red-blue.gif"), "--width", "8",
                                              "--animate", "--loops", "1"])
        #expect(run.status == 0, "\(run.err)")
        // 64x48 at 8 columns is 8x6 pixels: 3 text rows; 4 frames, each after the first moves up 3 rows.
        #expect(run.out.components(separatedBy: "\u{1B}[3A").count - 1 == 3)
    }
}
