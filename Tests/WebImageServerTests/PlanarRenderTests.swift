import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin
@testable import WebImageServer

/// Issue #36 lever 3 in the proxy: a JPEG → JPEG shrink with nothing that needs RGB goes
/// through ``JPEGPlanarTranscoder``; any step that needs pixels or another geometry does not.
@Suite("Planar JPEG renders in the proxy", .timeLimit(.minutes(1)))
struct PlanarRenderTests {
    static func renderer(_ options: String, output: OutputSettings = OutputSettings()) throws -> ImageRenderer {
        let url = try ProxyURL.parse("/unsafe/\(options)/plain/http://example.com/a.jpg", language: ProxyLanguage())
        return ImageRenderer(
            options: url.options, choice: OutputChoice(named: url.options.format, accept: nil, settings: output,
                                                       coder: ImageCodersManager.shared),
            limits: RenderLimits(maxSourcePixels: 100_000_000, maxOutputPixels: 100_000_000, maxAnimationFrames: 1),
            output: output)
    }

    /// PSNR over R, G and B of two images of the same size.
    static func psnr(_ a: DecodedImage, _ b: DecodedImage) -> Double {
        var sum = 0.0
        for i in Swift.stride(from: 0, to: a.pixels.bytes.count, by: 4) {
            for c in 0..<3 { let d = Double(a.pixels.bytes[i + c]) - Double(b.pixels.bytes[i + c]); sum += d * d }
        }
        return 10 * log10(255 * 255 / (sum / Double(a.width * a.height * 3)))
    }

    static func allows(_ options: String, _ data: Data) throws -> Bool {
        let renderer = try renderer(options)
        let header = ImageHeader(data)
        let (decode, planned) = renderer.decodeOptions(header: header, animated: false)
        return renderer.allowsPlanarJPEG(header: header, animated: false, decode: decode, planned: planned)
    }

    @Test("the rule: plain shrinks to JPEG (max_bytes too) go planar; crops, effects, padding, other formats and no shrink do not")
    func rule() throws {
        let jpeg = Data(try Fixtures.landscapeJPEG())  // 1800×1200, 4:2:0
        for options in ["rs:fit:300:300", "rs:fit:673:500", "w:500", "rs:fill:300:200", "rs:fit:300:300/bg:ff0000",
                        "rs:fit:300:300/q:60", "rs:fit:300:300/f:jpg", "rs:fit:300:300/mb:10000"] {
            #expect(try Self.allows(options, jpeg), "\(options)")
        }
        for options in ["rs:fill:300:300", "rs:fit:300:300/c:900:600", "rs:fit:300:300/bl:2", "rs:fit:300:300/sh:1",
                        "rs:fit:300:300/pix:4", "rs:fit:300:300/rot:90", "rs:fit:300:300/fl:1:0",
                        "rs:fit:300:300/pd:10", "rs:fit:400:400/ex:1", "rs:fit:300:300/t:10",
                        "rs:fit:300:300/f:png", "rs:fit:300:300/f:webp", "rs:fit:4000:4000", ""] {
            #expect(try !Self.allows(options, jpeg), "\(options)")
        }
        let png = try ImageCodersManager.shared.encode(
            DecodedImage(pixels: PixelBuffer(width: 64, height: 64), format: .png), as: .png, options: .init())
        #expect(try !Self.allows("rs:fit:16:16/f:jpg", png))
    }

    @Test("the proxy answers a plain shrink with the planar transcoder's bytes, and a no-op crop of the same size through RGB, within 40 dB")
    func answers() async throws {
        let jpeg = try Fixtures.landscapeJPEG()
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/a.jpg", .init(body: jpeg, contentType: "image/jpeg"))
            let renderer = try Self.renderer("rs:fit:300:300")
            let (decode, _) = renderer.decodeOptions(header: ImageHeader(Data(jpeg)), animated: false)
            let encode = ImageEncodeOptions(quality: Double(renderer.quality(for: .jpeg)) / 100)
            let planar = try #require(try JPEGPlanarTranscoder.transcode(Data(jpeg), options: decode, encode: encode))
            try await ProxyHarness.with(.unsigned) { proxy in
                let plain = try await proxy.get(ProxyHarness.unsafePath(origin.url("/a.jpg"), "rs:fit:300:300"))
                #expect(plain.status == 200)
                #expect(Data(plain.body) == planar.data)
                // A crop of the whole source: the same geometry, but it takes the RGB path.
                let cropped = try await proxy.get(ProxyHarness.unsafePath(origin.url("/a.jpg"), "c:1800:1200/rs:fit:300:300"))
                #expect(Data(cropped.body) != planar.data)
                let a = try Fixtures.decode(plain.body), b = try Fixtures.decode(cropped.body)
                #expect(a.width == 300 && a.height == 200 && b.width == 300 && b.height == 200)
                let psnr = Self.psnr(a, b)
                #expect(psnr >= 40, "\(psnr) dB")
            }
        }
    }

    @Test("WEBIMAGE_SHRINK_ON_LOAD=imgproxy reaches the decode: a 6× shrink decodes at 1/4 (libvips' rule: 1/2), the same picture; under 2× both decode whole")
    func shrinkOnLoadRule() throws {
        let jpeg = Data(try Fixtures.landscapeJPEG())  // 1800×1200
        var imgproxy = OutputSettings()
        imgproxy.shrinkOnLoad = .imgproxy
        func transcode(_ options: String, _ output: OutputSettings) throws -> (Data, ImageDecodeOptions) {
            let renderer = try Self.renderer(options, output: output)
            let (decode, _) = renderer.decodeOptions(header: ImageHeader(jpeg), animated: false)
            let encode = ImageEncodeOptions(quality: Double(renderer.quality(for: .jpeg)) / 100)
            return (try #require(try JPEGPlanarTranscoder.transcode(jpeg, options: decode, encode: encode)).data, decode)
        }
        let (ours, oursOptions) = try transcode("rs:fit:300:300", OutputSettings())
        let (theirs, theirOptions) = try transcode("rs:fit:300:300", imgproxy)
        #expect(oursOptions.shrinkOnLoad == .libvips && theirOptions.shrinkOnLoad == .imgproxy)
        #expect(ours != theirs)
        let a = try Fixtures.decode(ours), b = try Fixtures.decode(theirs)
        #expect(a.width == 300 && a.height == 200 && b.width == 300 && b.height == 200)
        let psnr = Self.psnr(a, b)
        #expect(psnr >= 30, "\(psnr) dB")
        #expect(try transcode("rs:fit:1000:1000", OutputSettings()).0 == transcode("rs:fit:1000:1000", imgproxy).0)
    }
}
