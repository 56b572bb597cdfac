import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("webimage decode: the command-line contract", .timeLimit(.minutes(2)))
struct DecodeCommandTests {
    static let jpeg = Corpus.root.appendingPathComponent("jpeg/jpeg-decoder/tower_progressive.jpg").path
    static let gif = Corpus.root.appendingPathComponent("gif/gif-test-suite/animated_loop.gif").path

    @Test("--json prints one object with the design's fields, in order; exit 0")
    func json() async throws {
        let run = try await WebImageTool.run(["decode", Self.gif, "--json"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.lines.count == 1)
        #expect(run.lines[0].hasPrefix("{\"file\":\"\(Self.gif)\",\"ok\":true,\"format\":\"gif\",\"width\":100,\"height\":100,"
                                       + "\"frames\":4,\"loopCount\":0,\"bytes\":"))
        let object = try #require(try run.jsonLines().first)
        #expect(object["bytes"] as? Int == (try Data(contentsOf: URL(fileURLWithPath: Self.gif))).count)
        #expect(object["ms"] is Double || object["ms"] is Int)
    }

    @Test("--thumbnail and --out X.rgba / X.png write the decoded first frame")
    func outputs() async throws {
        let directory = try TemporaryDirectory()
        let raw = directory.url.appendingPathComponent("tower.rgba")
        let png = directory.url.appendingPathComponent("tower.png")
        let small = try await WebImageTool.run(["decode", Self.jpeg, "--thumbnail", "100x50", "--out", raw.path, "--json"])
        #expect(small.status == 0)
        let object = try #require(try small.jsonLines().first)
        #expect(object["width"] as? Int == 50 && object["height"] as? Int == 50)
        #expect(try Data(contentsOf: raw).count == 50 * 50 * 4)

        let full = try await WebImageTool.run(["decode", Self.jpeg, "--out", png.path])
        #expect(full.status == 0)
        #expect(full.out.contains("jpeg 512x512"))
        let decoded = try ImageCodersManager.shared.decode(try Data(contentsOf: png), options: .init())
        #expect(decoded.format == .png && decoded.width == 512)
    }

    @Test("undecodable or too large input exits 1 with the error object; bad usage exits 2")
    func failures() async throws {
        let tooLarge = try await WebImageTool.run(["decode", Self.jpeg, "--max-pixels", "1000", "--json"])
        #expect(tooLarge.status == 1)
        let error = try #require(try tooLarge.jsonLines().first?["error"] as? [String: Any])
        #expect(error["code"] as? Int == 1004 && error["name"] as? String == "imageTooLarge")

        let directory = try TemporaryDirectory()
        let text = directory.url.appendingPathComponent("notes.jpg")
        try Data("plain text".utf8).write(to: text)
        let garbage = try await WebImageTool.run(["decode", text.path, "--json"])
        #expect(garbage.status == 1)
        #expect((try garbage.jsonLines().first?["error"] as? [String: Any])?["name"] as? String == "badImageData")

        for arguments in [["decode"], ["decode", Self.jpeg, "--thumbnail", "wide"], ["decode", Self.jpeg, "--out", "x.bmp"],
                          ["decode", Self.jpeg, "--max-pixels", "0"]] {
            #expect(try await WebImageTool.run(arguments).status == 2, "\(arguments)")
        }
    }
}
