import AsyncHTTPClient
import Foundation
import Testing
import WebImageCodecs

/// `webimage serve` gives `/info`'s thumbnail (its average colour and BlurHash here) and a
/// 100 px render of a 2 MP baseline JPEG to WebImage's scaled decoder (`wi_jpeg_scaled.c`),
/// as `/metrics`' `webimage_jpeg_scaled_decodes_total` shows, unless
/// `WEBIMAGE_JPEG_SCALED_DECODER=0` hands them to libjpeg-turbo; the answers are the same
/// bytes either way. Each instance is a process of its own, so its count is its own.
@Suite("webimage serve: /info, renders and the scaled JPEG decoder", .serialized, .timeLimit(.minutes(3)))
struct ServeScaledJPEGTests {
    static let enabled = FileManager.default.isExecutableFile(atPath: ServeInstance.executable.path)

    static func get(_ base: String, _ path: String) async throws -> (status: Int, body: Data) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + path), timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), Data(buffer: body))
    }

    static func scaledDecodes(_ base: String) async throws -> Int {
        let page = String(decoding: try await get(base, "/metrics").body, as: UTF8.self)
        let line = try #require(page.split(separator: "\n").first { $0.hasPrefix("webimage_jpeg_scaled_decodes_total ") },
                                "no scaled-decode count on /metrics")
        return try #require(Int(line.split(separator: " ")[1]))
    }

    /// The `/info` JSON and the render from an instance with `value` in the variable, and
    /// the scaled decodes counted after each.
    static func answers(value: String, root: URL, work: URL) async throws -> (info: Data, render: Data, counts: [Int]) {
        try await ServeInstance.with(
            ["--local-root", root.path], environment: [ImageDecodeOptions.scaledJPEGDecoderVariable: value],
            log: work.appendingPathComponent("serve-\(value).log"), client: .shared
        ) { serve in
            let info = try await get(serve.baseURL, "/info/unsafe/s:0/f:0/d:0/exif:0/iptc:0/xmp:0/avg:1/bh:4:3/plain/local:///l1.jpg")
            #expect(info.status == 200)
            let afterInfo = try await scaledDecodes(serve.baseURL)
            let render = try await get(serve.baseURL, "/unsafe/rs:fit:100:100/plain/local:///l1.jpg@jpg")
            #expect(render.status == 200)
            return (info.body, render.body, [afterInfo, try await scaledDecodes(serve.baseURL)])
        }
    }

    @Test("/info and a render use it; WEBIMAGE_JPEG_SCALED_DECODER=0 turns it off; the answers are the same",
          .enabled(if: enabled, "the webimage product is not built"))
    func switchedOff() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-scaled-\(UUID().uuidString)")
        let root = work.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        // 1800×1200 baseline 4:2:0: /info's 100 px thumbnail and the 100×67 render are 1/8 decodes.
        try FileManager.default.copyItem(at: Fixtures.corpus.appendingPathComponent("jpeg/exif-orientation/Landscape_1.jpg"),
                                         to: root.appendingPathComponent("l1.jpg"))
        let on = try await Self.answers(value: "1", root: root, work: work)
        let off = try await Self.answers(value: "0", root: root, work: work)
        #expect(on.counts == [1, 2])
        #expect(off.counts == [0, 0])
        #expect(on.info == off.info)
        #expect(on.render == off.render)
        let info = try #require(try JSONSerialization.jsonObject(with: on.info) as? [String: Any])
        #expect(info["blurhash"] is String && info["average"] != nil, "\(info)")
    }
}
