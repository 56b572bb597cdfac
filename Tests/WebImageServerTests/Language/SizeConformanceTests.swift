import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin
@testable import WebImageServer

/// Result sizes over HTTP, against imgproxy's own: the expectations are those of
/// imgproxy's processing tests on its 200×100 `geometry.png` (processing_test.go) and the
/// sizes its documentation's formulas give (docs/usage/processing.mdx), computed by hand,
/// never by our code. Sources are PNGs drawn here, served by a loopback origin.
@Suite("imgproxy conformance: result sizes", .timeLimit(.minutes(3)))
struct SizeConformanceTests {
    /// A `width`×`height` PNG with some detail (opaque).
    static func png(_ width: Int, _ height: Int) throws -> [UInt8] {
        let pixels = PixelBuffer(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    out[i] = UInt8(x * 255 / max(1, width - 1))
                    out[i + 1] = UInt8(y * 255 / max(1, height - 1))
                    out[i + 2] = UInt8((x + y) % 2 == 0 ? 40 : 200)
                    out[i + 3] = 255
                }
            }
        }
        return Array(try ImageCodersManager.shared.encode(DecodedImage(pixels: pixels, format: .png), as: .png, options: ImageEncodeOptions()))
    }

    /// Requests each `options` for a source of `size` and checks the result's size.
    static func check(source size: (Int, Int), _ cases: [(String, Int, Int)], config: ProxyConfig = .unsigned) async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/src.png", .init(body: try png(size.0, size.1), contentType: "image/png"))
            try await ProxyHarness.with(config) { proxy in
                for (options, width, height) in cases {
                    // The public arithmetic (ProxyGeometry) gives the same size without a render.
                    let parsed = try ProxyURL.parse("/unsafe/\(options)/plain/\(origin.url("/src.png"))", language: config.language).options
                    let computed = ProxyGeometry.outputSize(
                        source: PixelSize(width: size.0, height: size.1), options: parsed, maxResultDimension: config.output.maxResultDimension)
                    #expect(computed == PixelSize(width: width, height: height),
                            "ProxyGeometry: \(options) on \(size.0)x\(size.1): \(computed), imgproxy gives \(width)x\(height)")
                    let answer = try await proxy.get("/unsafe/\(options)/plain/\(origin.url("/src.png"))")
                    #expect(answer.status == 200, "\(options): \(String(decoding: answer.body, as: UTF8.self))")
                    guard answer.status == 200 else { continue }
                    let image = try Fixtures.decode(answer.body)
                    #expect(image.width == width && image.height == height,
                            "\(options) on \(size.0)x\(size.1): \(image.width)x\(image.height), imgproxy gives \(width)x\(height)")
                }
            }
        }
    }

    @Test("fit, fit with enlarge, fill, fill-down, force, on 200×100")
    func resizingTypes() async throws {
        try await Self.check(source: (200, 100), [
            ("rs:fit:50:50", 50, 25), ("rs:fit:50:20", 40, 20), ("rs:fit:20:50", 20, 10), ("rs:fit:300:300", 200, 100),
            ("rs:fit:300:50", 100, 50), ("rs:fit:100:300", 100, 50), ("rs:fit:0:50", 100, 50), ("rs:fit:50:0", 50, 25),
            ("rs:fit:0:200", 200, 100), ("rs:fit:300:0", 200, 100),
            ("rs:fit:300:300:1", 300, 150), ("rs:fit:300:125:1", 250, 125), ("rs:fit:0:200:1", 400, 200),
            ("rs:fill:50:50", 50, 50), ("rs:fill:300:300", 200, 100), ("rs:fill:300:50", 200, 50), ("rs:fill:100:300", 100, 100),
            ("rs:fill-down:300:300", 100, 100), ("rs:fill-down:300:125", 200, 83), ("rs:fill-down:250:300", 83, 100),
            ("rs:force:50:0", 50, 100), ("rs:force:50:70", 50, 70),
            // Without enlarge the smaller shrink is raised to 1: 300×300 forced gives 100×100.
            ("rs:force:300:300", 100, 100),
            ("w:50", 50, 25), ("h:20", 40, 20), ("s:60:60", 60, 30),
        ])
    }

    @Test("extend and extend_aspect_ratio on 200×100")
    func extend() async throws {
        try await Self.check(source: (200, 100), [
            ("rs:fit:300:300/ex:1", 300, 300), ("rs:fit:300:0/ex:1", 300, 100), ("rs:fit:0:200/ex:1", 200, 200),
            ("rs:fit:50:50/ex:1", 50, 50), ("rs:fit:300:300:0:1:soea:10:10", 300, 300),
            ("rs:fit:300:300/exar:1", 200, 200), ("rs:fit:300:125/exar:1", 240, 100), ("rs:fit:250:500/extend_ar:1", 200, 400),
        ])
    }

    /// imgproxy's padding tests: `pd:20:30:40:10` with dpr 0.5, 1 and 2.
    @Test("padding with dpr on 200×100")
    func padding() async throws {
        try await Self.check(source: (200, 100), [
            ("dpr:0.5/pd:20:30:40:10/el:1", 120, 80), ("pd:20:30:40:10", 240, 160), ("dpr:2/pd:20:30:40:10/el:1", 480, 320),
            ("pd:10", 220, 120), ("rs:fit:100:100/pd:5:10", 120, 60),
        ])
    }

    @Test("dpr, zoom, min sizes and gravity crops")
    func dprZoomMin() async throws {
        try await Self.check(source: (200, 100), [
            // dpr never upscales without enlarge; "fill 100×26 at dpr 2" stays within the source.
            ("rs:fill:100:26/dpr:2", 200, 52), ("rs:fill:26:100/dpr:2", 26, 100), ("rs:fill:100:26/g:no::5/dpr:0.5", 50, 13),
            ("dpr:3", 200, 100), ("dpr:3/el:1", 600, 300), ("dpr:0.5", 100, 50),
            // zoom: 200/50 = 4, /1.5 → 2.667 → 75×37.5 → 75×38.
            ("z:1.5/w:50", 75, 38), ("z:2:0.5/w:50", 100, 13),
            // min-width: fit 100×100 shrinks 2; mw:150 raises it to 150 wide, then the 100×100 target crops.
            ("rs:fit:100:100/mw:150", 100, 75), ("mw:300", 300, 150), ("mh:200", 400, 200),
        ])
    }

    @Test("crop (absolute, relative, whole side) before scaling, rotation and auto")
    func cropRotateAuto() async throws {
        try await Self.check(source: (400, 300), [
            ("c:0.5:0.5/rs:fit:50:50", 50, 38), ("c:100:0/rs:fill:30:30", 30, 30), ("c:100", 100, 300),
            ("c:1000:1000", 400, 300), ("c:100:100:nowe:10:20", 100, 100),
            ("rot:90/rs:fit:40:40", 30, 40), ("rot:180/rs:fit:40:40", 40, 30), ("rot:270", 300, 400), ("fl:1:1", 400, 300),
            // auto: landscape source, landscape box → fill; portrait box → fit.
            ("rs:auto:60:40", 60, 40), ("rs:auto:40:60", 40, 30),
        ])
    }

    /// imgproxy's max_result_dimension tests (security option, allowed here).
    @Test("max_result_dimension shrinks everything, padding included")
    func maxResultDimension() async throws {
        var config = ProxyConfig.unsigned
        config.language.allowsSecurityOptions = true
        try await Self.check(source: (200, 100), [
            ("mrd:200/rs:fit:100:100/pd:100:200:300:400", 200, 129), ("mrd:200/rs:fill:100:100/pd:100:200:300:400", 200, 144),
            ("mrd:50/rs:fill:1000:50", 50, 13), ("mrd:50/rs:fill-down:1000:50", 50, 3), ("mrd:100/rs:fit:1000:2000/ex:1", 50, 100),
            ("mrd:150", 150, 75),
        ], config: config)
    }

    @Test("ProxyGeometry: the server's result-dimension limit shrinks the result; a URL's max_result_dimension wins over it")
    func resultDimensionPrecedence() throws {
        var language = ProxyLanguage()
        language.allowsSecurityOptions = true
        let source = PixelSize(width: 200, height: 100)
        let plain = try ProxyURL.parse("/unsafe/plain/http://example.com/a.png", language: language).options
        #expect(ProxyGeometry.outputSize(source: source, options: plain, maxResultDimension: 50) == PixelSize(width: 50, height: 25))
        let own = try ProxyURL.parse("/unsafe/mrd:150/plain/http://example.com/a.png", language: language).options
        #expect(ProxyGeometry.outputSize(source: source, options: own, maxResultDimension: 50) == PixelSize(width: 150, height: 75))
    }

    @Test("EXIF orientation: applied by default, not with auto_rotate:0")
    func exifOrientation() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            // Landscape_6.jpg: stored 1200×1800, EXIF 6, displayed 1800×1200.
            let jpeg = Array(try Data(contentsOf: Fixtures.corpus.appendingPathComponent("jpeg/exif-orientation/Landscape_6.jpg")))
            origin.route("/o6.jpg", .init(body: jpeg, contentType: "image/jpeg"))
            try await ProxyHarness.with(.unsigned) { proxy in
                for (options, width, height) in [("rs:fit:300:300", 300, 200), ("rs:fit:300:300/ar:0", 200, 300), ("rs:fit:300:300/rot:90", 200, 300)] {
                    let answer = try await proxy.get("/unsafe/\(options)/plain/\(origin.url("/o6.jpg"))")
                    let image = try Fixtures.decode(answer.body)
                    #expect(image.width == width && image.height == height, "\(options): \(image.width)x\(image.height)")
                }
            }
        }
    }
}
