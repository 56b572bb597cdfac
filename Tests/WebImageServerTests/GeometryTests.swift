import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin
@testable import WebImageServer

@Suite("Resizing, gravity, animation", .timeLimit(.minutes(1)))
struct GeometryTests {
    @Test func sizesFollowTheResizingType() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/a.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))  // 1800×1200
            try await ProxyHarness.with(.unsigned) { proxy in
                let cases: [(String, Int, Int)] = [
                    ("rs:fit:300:300", 300, 200),
                    ("rs:fit:0:100", 150, 100),
                    ("rs:fit:300:300/dpr:2", 600, 400),
                    ("rs:fill:300:300", 300, 300),
                    ("rs:fill:120:300", 120, 300),
                    ("rs:fill:300:50/g:so", 300, 50),
                    ("rs:fit:16384:16384", 1800, 1200),  // never enlarged
                    ("rs:fill:4000:2000", 1800, 1200),  // never enlarged: the crop keeps the source's size
                    ("rs:fill-down:4000:2000", 1800, 900),  // never enlarged, the box's proportions kept
                    ("", 1800, 1200),
                ]
                for (options, w, h) in cases {
                    let answer = try await proxy.get(ProxyHarness.unsafePath(origin.url("/a.jpg"), options))
                    #expect(answer.status == 200, "\(options)")
                    let image = try Fixtures.decode(answer.body)
                    #expect(image.width == w && image.height == h, "\(options): \(image.width)x\(image.height)")
                }
            }
        }
    }

    /// A 100×200 picture, red above and blue below: a square fill shows one colour or
    /// the other depending on the gravity.
    @Test func gravityChoosesTheCrop() async throws {
        var bytes: [UInt8] = []
        for row in 0..<200 {
            for _ in 0..<100 { bytes += row < 100 ? [255, 0, 0, 255] : [0, 0, 255, 255] }
        }
        let pixels = try #require(PixelBuffer(width: 100, height: 200, bytes: bytes))
        let png = try ImageCodersManager.shared.encode(DecodedImage(pixels: pixels, format: .png), as: .png, options: .init())
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/halves.png", .init(body: Array(png), contentType: "image/png"))
            try await ProxyHarness.with(.unsigned) { proxy in
                for (gravity, red, blue) in [("no", 255, 0), ("so", 0, 255)] {
                    let answer = try await proxy.get(ProxyHarness.unsafePath(origin.url("/halves.png"), "rs:fill:50:50/g:\(gravity)/f:png"))
                    let image = try Fixtures.decode(answer.body)
                    #expect(image.width == 50 && image.height == 50)
                    let centre = image.pixels.bytes[(25 * 50 + 25) * 4..<(25 * 50 + 25) * 4 + 3]
                    #expect(Array(centre) == [UInt8(red), 0, UInt8(blue)], "g:\(gravity)")
                }
            }
        }
    }

    @Test func animationsStayAnimatedOnlyAsGIF() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/anim.gif", .init(body: try Fixtures.animatedGIF(), contentType: "image/gif"))  // 4 frames
            var config = ProxyConfig.unsigned
            config.maxAnimationFrames = 3
            try await ProxyHarness.with(config) { proxy in
                let still = try await proxy.get(ProxyHarness.unsafePath(origin.url("/anim.gif"), "rs:fit:50:50/f:png"))
                #expect(try Fixtures.decode(still.body).frames.count == 1)
                let tooMany = try await proxy.get(ProxyHarness.unsafePath(origin.url("/anim.gif"), "rs:fit:50:50/f:gif"))
                #expect(tooMany.status == 422)
                #expect(tooMany.errorCode?.name == "imageTooLarge")
            }
            config.maxAnimationFrames = 10
            try await ProxyHarness.with(config) { proxy in
                let animated = try await proxy.get(ProxyHarness.unsafePath(origin.url("/anim.gif"), "rs:fit:50:50/f:gif"))
                let image = try Fixtures.decode(animated.body)
                #expect(image.frames.count == 4)
                #expect(image.width == 50)
            }
        }
    }
}
