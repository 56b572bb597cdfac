import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin

/// Every `--resize-mode` against img2dataset 1.47's resizer semantics (its README,
/// "resize_mode", and `resizer.py`): the sizes below are img2dataset's own outputs for
/// these inputs (written out here, not computed by our code), Python's round-half-even
/// ties, border padding with the odd pixel at the bottom, center-crop, only-if-bigger,
/// alpha painted on white, the size filters and skip-reencode.
@Suite("webimage fetch: img2dataset resize modes", .serialized, .timeLimit(.minutes(3)))
struct DatasetResizeTests {
    /// Source sizes served as solid blue PNGs.
    static let sources = [(640, 480), (300, 200), (257, 129), (10, 5)]

    /// img2dataset 1.47's output size for each source at image_size 256.
    static let expected: [String: [(Int, Int)]] = [
        "no": [(640, 480), (300, 200), (257, 129), (10, 5)],
        "border": [(256, 256), (256, 256), (256, 256), (256, 256)],
        "keep_ratio": [(341, 256), (384, 256), (510, 256), (512, 256)],
        "keep_ratio_largest": [(256, 192), (256, 171), (256, 128), (256, 128)],
        "center_crop": [(256, 256), (256, 256), (256, 256), (256, 256)],
    ]
    /// Border mode: the image's rows inside the padding (top, height) for each source.
    static let borderRows = [(32, 192), (42, 171), (64, 128), (64, 128)]

    /// Serves `sizes` as `/s/W-H.png`; returns the list of URLs.
    static func serve(_ origin: TestOrigin, _ sizes: [(Int, Int)], color: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 255, 255)) throws -> [String] {
        try sizes.map { w, h in
            let path = "/s/\(w)-\(h)-\(color.3).png"
            origin.route(path, .init(body: try DatasetFixture.png(w, h, color: color), contentType: "image/png"))
            return origin.url(path).absoluteString
        }
    }

    /// Runs a files job over `urls` with `flags` and PNG output; the decoded images by row.
    static func run(_ urls: [String], _ flags: [String], work: TemporaryDirectory, name: String) async throws -> [PixelBuffer?] {
        let list = try DatasetFixture.write(urls.joined(separator: "\n") + "\n", "\(name).txt", in: work)
        let out = work.url.appendingPathComponent(name)
        let run = try await WebImageTool.run(["fetch", "--file", list, "--out", out.path, "--encode-format", "png",
                                              "--number-sample-per-shard", "100"] + flags)
        #expect(run.status == 0, "\(name): \(run.err)")
        return try urls.indices.map { i in
            let file = out.appendingPathComponent("00000/\(DatasetFixture.key(shard: 0, index: i, perShard: 100)).png")
            guard let data = try? Data(contentsOf: file) else { return nil }
            let json = try DatasetFixture.object(Data(contentsOf: file.deletingPathExtension().appendingPathExtension("json")))
            let image = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions()).pixels
            #expect(json["width"] as? Int == image.width && json["height"] as? Int == image.height, "\(name) row \(i)")
            return image
        }
    }

    static func pixel(_ p: PixelBuffer, _ x: Int, _ y: Int) -> [UInt8] {
        let i = (y * p.width + x) * 4
        return Array(p.bytes[i..<i + 4])
    }

    @Test("Each mode gives img2dataset's sizes; border pads white with the odd row at the bottom")
    func modes() async throws {
        try await TestOrigin.with { origin in
            let work = try TemporaryDirectory()
            let urls = try Self.serve(origin, Self.sources)
            for (mode, sizes) in Self.expected {
                let images = try await Self.run(urls, ["--resize-mode", mode], work: work, name: mode)
                #expect(images.map { $0.map { [$0.width, $0.height] } } == sizes.map { [$0.0, $0.1] }, "\(mode)")
                guard mode == "border" else { continue }
                for (image, rows) in zip(images, Self.borderRows) {
                    let image = try #require(image)
                    let (top, height) = rows
                    for y in [0, top - 1, top + height, 255] where y >= 0 && y < 256 {
                        #expect(Self.pixel(image, 128, y) == [255, 255, 255, 255], "padding row \(y)")
                    }
                    for y in [top, top + height - 1] { #expect(Self.pixel(image, 128, y) == [0, 0, 255, 255], "image row \(y)") }
                }
            }
        }
    }

    @Test("Python's round: ties go to the even side (5×10 at 5 → 2×5, at 7 → 4×7)")
    func roundHalfEven() async throws {
        try await TestOrigin.with { origin in
            let work = try TemporaryDirectory()
            let urls = try Self.serve(origin, [(5, 10)])
            let five = try await Self.run(urls, ["--resize-mode", "keep_ratio_largest", "--image-size", "5"], work: work, name: "s5")
            let seven = try await Self.run(urls, ["--resize-mode", "keep_ratio_largest", "--image-size", "7"], work: work, name: "s7")
            #expect(five.first??.width == 2 && five.first??.height == 5)
            #expect(seven.first??.width == 4 && seven.first??.height == 7)
        }
    }

    @Test("--resize-only-if-bigger leaves smaller images alone: no resize, no padding, no crop")
    func onlyIfBigger() async throws {
        try await TestOrigin.with { origin in
            let work = try TemporaryDirectory()
            let urls = try Self.serve(origin, Self.sources)
            let border = try await Self.run(urls, ["--resize-mode", "border", "--resize-only-if-bigger"], work: work, name: "b")
            #expect(border.map { $0.map { [$0.width, $0.height] } } == [[256, 256], [256, 256], [256, 256], [10, 5]])
            let crop = try await Self.run(urls, ["--resize-mode", "center_crop", "--resize-only-if-bigger"], work: work, name: "c")
            #expect(crop.map { $0.map { [$0.width, $0.height] } } == [[256, 256], [300, 200], [257, 129], [10, 5]])
        }
    }

    @Test("--border-color paints the padding")
    func borderColor() async throws {
        try await TestOrigin.with { origin in
            let work = try TemporaryDirectory()
            let urls = try Self.serve(origin, [(300, 200)])
            let images = try await Self.run(urls, ["--border-color", "#ff8000"], work: work, name: "red")
            let image = try #require(images.first ?? nil)
            #expect(Self.pixel(image, 10, 0) == [255, 128, 0, 255])
            #expect(Self.pixel(image, 10, 255) == [255, 128, 0, 255])
            #expect(Self.pixel(image, 10, 128) == [0, 0, 255, 255])
        }
    }

    @Test("Transparent pixels are painted on white with img2dataset's rounding")
    func alphaOnWhite() async throws {
        try await TestOrigin.with { origin in
            let work = try TemporaryDirectory()
            let half = try Self.serve(origin, [(4, 4)], color: (200, 100, 0, 128))
            let clear = try Self.serve(origin, [(4, 4)], color: (10, 20, 30, 0))
            let images = try await Self.run(half + clear, ["--resize-mode", "no"], work: work, name: "alpha")
            // round_half_even(128/255·c + 127): 200 → 227.39 → 227, 100 → 177.20 → 177, 0 → 127.
            #expect(Self.pixel(try #require(images[0]), 1, 1) == [227, 177, 127, 255])
            #expect(Self.pixel(try #require(images[1]), 1, 1) == [255, 255, 255, 255])
        }
    }

    @Test("Size filters: strict comparisons, img2dataset's messages, status failed_to_resize")
    func filters() async throws {
        try await TestOrigin.with { origin in
            let work = try TemporaryDirectory()
            let cases: [([String], [(Int, Int)], [String?])] = [
                (["--min-image-size", "10"], [(10, 10), (9, 20)], [nil, "image too small"]),
                (["--max-image-area", "100"], [(10, 10), (11, 10)], [nil, "image area too large"]),
                (["--max-aspect-ratio", "2"], [(20, 10), (21, 10)], [nil, "aspect ratio too large"]),
            ]
            for (n, (flags, sizes, messages)) in cases.enumerated() {
                let urls = try Self.serve(origin, sizes)
                let list = try DatasetFixture.write(urls.joined(separator: "\n"), "f\(n).txt", in: work)
                let out = work.url.appendingPathComponent("f\(n)")
                let run = try await WebImageTool.run(["fetch", "--file", list, "--out", out.path, "--resize-mode", "no"] + flags)
                #expect(run.status == 0, "\(run.err)")
                let lines = try String(contentsOf: out.appendingPathComponent("00000.jsonl"), encoding: .utf8)
                    .split(separator: "\n").map { try DatasetFixture.object(Data($0.utf8)) }
                #expect(lines.map { $0["error_message"] as? String } == messages, "\(flags)")
                #expect(lines[1]["status"] as? String == "failed_to_resize")
                #expect(lines[1]["original_width"] is NSNull, "sizes are null for a failure, as in img2dataset")
            }
        }
    }

    @Test("--skip-reencode keeps a JFIF JPEG's bytes when nothing changes; the hash is of the downloaded bytes")
    func skipReencode() async throws {
        try await TestOrigin.with { origin in
            let jpeg = try Corpus.data(DatasetFixture.jpegPath)
            #expect(jpeg[6..<10] == Data("JFIF".utf8), "the fixture is a JFIF file")
            origin.route("/t.jpg", .init(body: Array(jpeg), contentType: "image/jpeg"))
            let work = try TemporaryDirectory()
            let list = try DatasetFixture.write(origin.url("/t.jpg").absoluteString, "t.txt", in: work)
            let key = DatasetFixture.key(shard: 0, index: 0, perShard: 10_000)
            for (name, flags, kept) in [("kept", ["--resize-mode", "no", "--skip-reencode"], true),
                                        ("encoded", ["--resize-mode", "no"], false),
                                        ("resized", ["--resize-mode", "border", "--skip-reencode"], false)] {
                let out = work.url.appendingPathComponent(name)
                let run = try await WebImageTool.run(["fetch", "--file", list, "--out", out.path] + flags)
                #expect(run.status == 0, "\(run.err)")
                let written = try Data(contentsOf: out.appendingPathComponent("00000/\(key).jpg"))
                #expect((written == jpeg) == kept, "\(name)")
                let json = try DatasetFixture.object(Data(contentsOf: out.appendingPathComponent("00000/\(key).json")))
                #expect(json["sha256"] as? String == DatasetFixture.sha256(jpeg), "\(name)")
            }
        }
    }
}
