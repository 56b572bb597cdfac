import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin

/// A bulk sample of a baseline JPEG from a megapixel up, shrunk on load at 1/8, is decoded
/// by WebImage's scaled decoder (`wi_jpeg_scaled.c`) unless `WEBIMAGE_JPEG_SCALED_DECODER=0`
/// hands it to libjpeg-turbo, and the sample's bytes are the same either way. Each run is
/// a process of its own, so its `--metrics` count of scaled decodes is that run's alone.
@Suite("webimage fetch: bulk samples and the scaled JPEG decoder", .serialized, .timeLimit(.minutes(3)))
struct DatasetScaledJPEGTests {
    /// One dataset run over `url` (100 px, keep_ratio_largest, PNG out): the sample's bytes
    /// and the scaled decodes the process counted.
    static func sample(_ url: String, environment: [String: String], work: TemporaryDirectory,
                       name: String) async throws -> (png: Data, scaledDecodes: Int) {
        let list = try DatasetFixture.write(url + "\n", "\(name).txt", in: work)
        let out = work.url.appendingPathComponent(name)
        let run = try await WebImageTool.run(
            ["fetch", "--file", list, "--out", out.path, "--encode-format", "png", "--resize-mode", "keep_ratio_largest",
             "--image-size", "100", "--number-sample-per-shard", "10", "--metrics"],
            environment: environment)
        #expect(run.status == 0, "\(name): \(run.err)")
        let key = DatasetFixture.key(shard: 0, index: 0, perShard: 10)
        let png = try Data(contentsOf: out.appendingPathComponent("00000/\(key).png"))
        let line = try #require(run.err.split(separator: "\n").first { $0.hasPrefix("webimage_jpeg_scaled_decodes_total ") },
                                "no scaled-decode count in --metrics:\n\(run.err)")
        return (png, try #require(Int(line.split(separator: " ")[1])))
    }

    @Test("a 1/8 sample uses it; WEBIMAGE_JPEG_SCALED_DECODER=0 turns it off; the bytes are the same")
    func switchedOff() async throws {
        // 1800×1200 baseline 4:2:0 to 100×67: 1/8 (225×150) still leaves 2× for Lanczos3.
        let jpeg = try Corpus.data("jpeg/exif-orientation/Landscape_1.jpg")
        try await TestOrigin.with { origin in
            origin.route("/l1.jpg", .init(body: Array(jpeg), contentType: "image/jpeg"))
            let work = try TemporaryDirectory()
            let url = origin.url("/l1.jpg").absoluteString
            let on = try await Self.sample(url, environment: [ImageDecodeOptions.scaledJPEGDecoderVariable: "1"],
                                           work: work, name: "on")
            let off = try await Self.sample(url, environment: [ImageDecodeOptions.scaledJPEGDecoderVariable: "0"],
                                            work: work, name: "off")
            #expect(on.scaledDecodes == 1)
            #expect(off.scaledDecodes == 0)
            #expect(on.png == off.png)
            let image = try ImageCodersManager.shared.decode(on.png, options: ImageDecodeOptions()).pixels
            #expect(image.width == 100 && image.height == 67)
        }
    }
}
