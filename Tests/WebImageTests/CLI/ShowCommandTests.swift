import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("webimage show: images drawn in the terminal", .timeLimit(.minutes(2)))
struct ShowCommandTests {
    static let halfBlock = "▀"

    /// Cells per row: how many half blocks each line holds.
    func cellsPerRow(_ run: WebImageTool.Run) -> [Int] {
        run.lines.map { $0.components(separatedBy: Self.halfBlock).count - 1 }
    }

    @Test("a photo is drawn --width columns wide, two pixel rows per text row, in 24-bit colour")
    func widthAndRows() async throws {
        // kodim23.png is 768x512: 40 columns make 27 pixel rows, so 14 text rows.
        let run = try await WebImageTool.run(["show", Corpus.root.appendingPathComponent("png/image-png/kodim23.png").path,
                                        "--width", "40"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.lines.count == 14)
        #expect(cellsPerRow(run).allSatisfy { $0 == 40 })
        #expect(run.out.contains("\u{1B}[38;2;") && run.out.contains("\u{1B}[48;2;"))
        #expect(run.lines.allSatisfy { $0.hasSuffix("\u{1B}[0m") })
    }

    @Test("without --width the drawing fits COLUMNS; a smaller image keeps its own width")
    func fitsTerminal() async throws {
        let photo = Corpus.root.appendingPathComponent("png/image-png/kodim23.png").path
        let wide = try await WebImageTool.run(["show", photo], environment: ["COLUMNS": "30"])
        #expect(wide.status == 0)
        #expect(cellsPerRow(wide).allSatisfy { $0 == 30 })
        #expect(wide.lines.count == 10)  // 30 * 512 / 768 = 20 pixel rows

        let tiny = try await WebImageTool.run(["show", Corpus.root.appendingPathComponent("png/image-png/acid2.png").path],
                                        environment: ["COLUMNS": "80"])
        #expect(tiny.status == 0)
        #expect(cellsPerRow(tiny) == [2])
    }

    @Test("transparent pixels are composited over black or the checkerboard")
    func alphaComposite() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("alpha.png")
        let pixels = try #require(PixelBuffer(width: 2, height: 2, bytes: [
            255, 0, 0, 255, /* */ 10, 20, 30, 0,
            0, 255, 0, 255, /* */ 0, 0, 255, 128,
        ]))
        try ImageCodersManager.shared.encode(DecodedImage(pixels: pixels, format: .png), as: .png, options: .init())
            .write(to: file)

        let black = try await WebImageTool.run(["show", file.path, "--background", "black"])
        #expect(black.status == 0)
        #expect(black.lines == [
            "\u{1B}[38;2;255;0;0m\u{1B}[48;2;0;255;0m▀\u{1B}[38;2;0;0;0m\u{1B}[48;2;0;0;128m▀\u{1B}[0m",
        ])
        let checker = try await WebImageTool.run(["show", file.path])
        #expect(checker.status == 0)
        #expect(checker.out.contains("\u{1B}[38;2;153;153;153m"))
    }

    @Test("an odd pixel height leaves the last row's lower half on the terminal's background")
    func oddHeight() async throws {
        // animated_loop.gif is 100x100; 5 columns wide it is 5 pixel rows: 3 text rows.
        let run = try await WebImageTool.run(["show", Corpus.root.appendingPathComponent("gif/gif-test-suite/animated_loop.gif").path,
                                        "--width", "5"])
        #expect(run.status == 0)
        #expect(run.lines.count == 3)
        #expect(run.lines.last?.contains("\u{1B}[49m") == true)
        #expect(!run.out.contains("\u{1B}[3A"), "without --animate only the first frame is drawn")
    }

    @Test("--animate redraws every frame in place, moving the cursor back up")
    func animate() async throws {
        let run = try await WebImageTool.run(["show", Corpus.root.appendingPathComponent("gif/gif-test-suite/animated_loop.gif").path,
                                        "--width", "6", "--animate", "--loops", "1"])
        #expect(run.status == 0, "\(run.err)")
        // 4 frames, 1 loop: 4 drawings of 3 rows, each after the first preceded by "up 3 rows".
        #expect(run.out.components(separatedBy: "\u{1B}[3A").count - 1 == 3)
        #expect(run.lines.count == 12)
    }

    @Test("unreadable or undecodable input exits 1 with the error's code; bad usage exits 2")
    func failures() async throws {
        let missing = try await WebImageTool.run(["show", "/nonexistent/picture.png"])
        #expect(missing.status == 1)
        #expect(missing.out.isEmpty)
        #expect(missing.err.contains("invalidURL (1000)"))

        let directory = try TemporaryDirectory()
        let text = directory.url.appendingPathComponent("notes.png")
        try Data("not an image".utf8).write(to: text)
        let garbage = try await WebImageTool.run(["show", text.path])
        #expect(garbage.status == 1)
        #expect(garbage.err.contains("badImageData (1001)"))

        #expect(try await WebImageTool.run(["show", text.path, "--width", "0"]).status == 2)
        #expect(try await WebImageTool.run(["show"]).status == 2)
        #expect(try await WebImageTool.run(["show", text.path, "--background", "plaid"]).status == 2)
    }
}
