import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin
@testable import WebImageServer

/// Formats and headers over HTTP, as imgproxy's documentation defines them
/// (docs/usage/processing.mdx "Format", "Quality", "Max bytes", "Skip processing", "Raw",
/// "Expires", "Filename", "Return attachment"; docs/configuration/options.mdx "Preferred
/// formats", "AVIF/WebP support detection").
@Suite("imgproxy conformance: formats and headers", .timeLimit(.minutes(2)))
struct OutputConformanceTests {
    static func withProxy(_ config: ProxyConfig = .unsigned, _ body: (ProxyHarness, TestOrigin) async throws -> Void) async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/photo.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg"))
            origin.route("/opaque.png", .init(body: try SizeConformanceTests.png(120, 80), contentType: "image/png"))
            origin.route("/anim.gif", .init(body: try Fixtures.animatedGIF(), contentType: "image/gif"))
            try await ProxyHarness.with(config) { proxy in try await body(proxy, origin) }
        }
    }

    static func path(_ origin: TestOrigin, _ file: String, _ options: String, ext: String? = nil) -> String {
        "/unsafe/\(options)/plain/\(origin.url(file))" + (ext.map { "@" + $0 } ?? "")
    }

    @Test("the source's format is kept when preferred; a named format or extension wins; AVIF/WebP follow Accept")
    func formatChoice() async throws {
        try await Self.withProxy { proxy, origin in
            let jpeg = try await proxy.get(Self.path(origin, "/photo.jpg", "rs:fit:100:100"))
            #expect(ImageFormat.detect(jpeg.body) == .jpeg && jpeg.header("Vary") == "Accept")
            let png = try await proxy.get(Self.path(origin, "/opaque.png", "rs:fit:50:50"))
            #expect(ImageFormat.detect(png.body) == .png)
            for (options, ext, format) in [("f:webp", nil, ImageFormat.webp), ("format:png", nil, .png), ("ext:gif", nil, .gif),
                                           ("rs:fit:10:10", "webp", .webp), ("f:webp", "png", .png)] {
                let answer = try await proxy.get(Self.path(origin, "/photo.jpg", options, ext: ext), headers: [("Accept", "image/avif")])
                #expect(ImageFormat.detect(answer.body) == format, "\(options) @\(ext ?? "")")
                #expect(answer.header("Vary") == nil)
            }
            let webp = try await proxy.get(Self.path(origin, "/photo.jpg", "rs:fit:60:60"), headers: [("Accept", "image/webp,*/*")])
            #expect(ImageFormat.detect(webp.body) == .webp)
            let tiny = try await proxy.get(Self.path(origin, "/photo.jpg", "rs:fit:12:12", ext: "avif"))
            #expect(ImageFormat.detect(tiny.body) == .jpeg, "AVIF under 16 px falls back to JPEG (PNG with alpha)")
            let none = try await proxy.get(Self.path(origin, "/photo.jpg", "f:tiff"))
            #expect(none.status == 422 && none.errorCode?.name == "unsupportedFormat")
        }
    }

    @Test("imgproxy's defaults: no Accept negotiation, PREFERRED_FORMATS, ENFORCE_WEBP over a named format")
    func preferredAndEnforced() async throws {
        var config = ProxyConfig.unsigned
        config.output.autoWebP = false
        config.output.autoAVIF = false
        config.output.preferredFormats = [.png, .jpeg]
        try await Self.withProxy(config) { proxy, origin in
            let answer = try await proxy.get(Self.path(origin, "/photo.jpg", "rs:fit:50:50"), headers: [("Accept", "image/webp")])
            #expect(ImageFormat.detect(answer.body) == .jpeg && answer.header("Vary") == nil)
            let gif = try await proxy.get(Self.path(origin, "/anim.gif", "rs:fit:50:50"))
            #expect(ImageFormat.detect(gif.body) == .png, "GIF is not preferred: the first preferred format with alpha")
        }
        config.output.enforceWebP = true
        try await Self.withProxy(config) { proxy, origin in
            let answer = try await proxy.get(Self.path(origin, "/photo.jpg", "rs:fit:50:50", ext: "png"), headers: [("Accept", "image/webp")])
            #expect(ImageFormat.detect(answer.body) == .webp && answer.header("Vary") == "Accept")
        }
    }

    @Test("quality, format_quality and max_bytes change the bytes as documented")
    func quality() async throws {
        try await Self.withProxy { proxy, origin in
            func size(_ options: String) async throws -> Int {
                try await proxy.get(Self.path(origin, "/photo.jpg", "rs:fit:400:400/" + options, ext: "jpg")).body.count
            }
            let q90 = try await size("q:90"), q30 = try await size("q:30")
            #expect(q30 < q90)
            #expect(try await size("fq:jpeg:30") == q30)
            #expect(try await size("fq:jpeg:30/q:90") == q90, "quality wins over format_quality")
            let capped = try await size("q:95/mb:\(q30)")
            #expect(capped <= q30, "max_bytes re-encodes until the result fits")
        }
    }

    /// imgproxy's `saveImageToFitBytes` (processing/): encode at the quality asked for;
    /// while the result is over `max_bytes` and the quality above 10, scale the quality by
    /// 0.25, 0.5 or 0.75 (over 3×, over 1.5×, else), always lowering it by at least one;
    /// at quality 10 or less the result is returned even when it does not fit. The
    /// expected quality is worked out here from `q:N` answers, the loop as imgproxy writes it.
    @Test("max_bytes follows imgproxy's loop: lower the quality until it fits, stop at quality 10")
    func maxBytesLoop() async throws {
        try await Self.withProxy { proxy, origin in
            var sizes: [Int: Int] = [:]
            func size(_ options: String) async throws -> Int {
                try await proxy.get(Self.path(origin, "/photo.jpg", "rs:fit:400:400/" + options, ext: "jpg")).body.count
            }
            func size(quality q: Int) async throws -> Int {
                if let known = sizes[q] { return known }
                let measured = try await size("q:\(q)")
                sizes[q] = measured
                return measured
            }
            func expected(limit: Int, start: Int) async throws -> Int {
                var q = start
                while true {
                    let bytes = try await size(quality: q)
                    if bytes <= limit || q <= 10 { return bytes }
                    let delta = Double(bytes) / Double(limit)
                    let factor = delta > 3 ? 0.25 : delta > 1.5 ? 0.5 : 0.75
                    q = max(1, min(q - 1, Int((Double(q) * factor).rounded())))
                }
            }
            let q10 = try await size(quality: 10), q60 = try await size(quality: 60)
            // A limit reachable above quality 10, and one no quality reaches.
            for limit in [(q10 + q60) / 2, q10 / 2] {
                let answer = try await size("q:80/mb:\(limit)")
                #expect(answer == (try await expected(limit: limit, start: 80)), "mb:\(limit)")
            }
            #expect(try await size("q:80/mb:\(q10 / 2)") > q10 / 2, "at quality 10 or below the result is returned over the limit, as imgproxy does")
        }
    }

    @Test("skip_processing and raw return the source's bytes")
    func passThrough() async throws {
        try await Self.withProxy { proxy, origin in
            let original = try Fixtures.landscapeJPEG()
            let skipped = try await proxy.get(Self.path(origin, "/photo.jpg", "rs:fit:10:10/skp:jpg"))
            #expect(Array(skipped.body) == original && skipped.header("Content-Type") == "image/jpeg")
            let raw = try await proxy.get(Self.path(origin, "/photo.jpg", "rs:fit:10:10/raw:1", ext: "png"))
            #expect(Array(raw.body) == original)
            // A named other format is processed.
            let named = try await proxy.get(Self.path(origin, "/photo.jpg", "rs:fit:10:10/skp:jpg", ext: "png"))
            #expect(ImageFormat.detect(named.body) == .png)
        }
    }

    @Test("Content-Disposition: the file name of the source or filename, the result's extension, attachment on request")
    func contentDisposition() async throws {
        try await Self.withProxy { proxy, origin in
            let plain = try await proxy.get(Self.path(origin, "/photo.jpg", "rs:fit:10:10", ext: "png"))
            #expect(plain.header("Content-Disposition") == "inline; filename=\"photo.png\"")
            let named = try await proxy.get(Self.path(origin, "/photo.jpg", "fn:face/att:1", ext: "jpg"))
            #expect(named.header("Content-Disposition") == "attachment; filename=\"face.jpg\"")
            let quoted = try await proxy.get(Self.path(origin, "/photo.jpg", "fn:\(ProxyHarness.base64URL("a\"b")):1", ext: "jpg"))
            #expect(quoted.header("Content-Disposition") == "inline; filename=\"a%22b.jpg\"")
        }
    }

    @Test("Cache-Control: the TTL, capped by expires; no-store for errors")
    func cacheControl() async throws {
        var config = ProxyConfig.unsigned
        config.maxAge = 86_400
        try await Self.withProxy(config) { proxy, origin in
            let plain = try await proxy.get(Self.path(origin, "/photo.jpg", "rs:fit:10:10"))
            #expect(plain.header("Cache-Control") == "max-age=86400, public")
            let soon = Int(Date().timeIntervalSince1970) + 3600
            let capped = try await proxy.get(Self.path(origin, "/photo.jpg", "rs:fit:10:10/exp:\(soon)"))
            let maxAge = capped.header("Cache-Control").flatMap { Int($0.dropFirst("max-age=".count).prefix { $0.isNumber }) } ?? 0
            #expect((3590...3600).contains(maxAge), "\(capped.header("Cache-Control") ?? "")")
            let expired = try await proxy.get(Self.path(origin, "/photo.jpg", "exp:1609448400"))
            #expect(expired.status == 404 && expired.errorCode?.name == "expired")
            #expect(expired.header("Cache-Control") == "no-store")
        }
    }

    @Test("client hints set dpr and width when enabled, and Vary names them")
    func clientHints() async throws {
        var config = ProxyConfig.unsigned
        config.output.clientHints = true
        try await Self.withProxy(config) { proxy, origin in
            // Width 200 device pixels at DPR 2: width 100 at dpr 2 → 200 pixels wide.
            let hinted = try await proxy.get(Self.path(origin, "/photo.jpg", "q:80", ext: "jpg"), headers: [("Sec-CH-Width", "200"), ("DPR", "2")])
            #expect(try Fixtures.decode(hinted.body).width == 200)
            #expect(hinted.header("Vary")?.contains("Sec-CH-Width") == true)
            let url = try await proxy.get(Self.path(origin, "/photo.jpg", "w:150/dpr:1", ext: "jpg"), headers: [("Sec-CH-Width", "200"), ("DPR", "2")])
            #expect(try Fixtures.decode(url.body).width == 150, "the URL's options win over hints")
        }
    }
}
