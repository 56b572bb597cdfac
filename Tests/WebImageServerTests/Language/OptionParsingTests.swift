import Foundation
import Testing
import WebImageCodecs
@testable import WebImageServer

/// imgproxy's processing options (docs/usage/processing.mdx of imgproxy/imgproxy-docs),
/// parsed from URLs: long and short names, omitted arguments, booleans, the CSS order of
/// padding, presets. Each expectation restates what the documentation says the option
/// means; none is read back from the parser.
@Suite("imgproxy language: options", .timeLimit(.minutes(1)))
struct OptionParsingTests {
    static let source = "http://example.com/images/curiosity.jpg"
    static let base64 = ProxyHarness.base64URL(source)

    static func parse(_ options: String, language: ProxyLanguage = ProxyLanguage(), plain: Bool = false) throws -> ProxyURL {
        let tail = plain ? "plain/" + source : base64
        return try ProxyURL.parse("/unsafe/" + (options.isEmpty ? "" : options + "/") + tail, language: language)
    }

    static func options(_ text: String, language: ProxyLanguage = ProxyLanguage()) throws -> ProcessingOptions {
        try parse(text, language: language).options
    }

    /// "resize:%resizing_type:%width:%height:%enlarge:%extend", "rs" for short; each may be omitted.
    @Test("resize / rs: type, width, height, enlarge, extend; any argument may be omitted")
    func resize() throws {
        for name in ["resize", "rs"] {
            let o = try Self.options("\(name):fill:300:400:1:1")
            #expect(o.resizingType == .fill && o.width == 300 && o.height == 400 && o.enlarge && o.extend.isEnabled)
            let partial = try Self.options("\(name):fit:300")
            #expect(partial.resizingType == .fit && partial.width == 300 && partial.height == 0 && !partial.enlarge)
            // "rs:::200" keeps the type and the width and sets only the height.
            let heightOnly = try Self.options("rt:fill-down/\(name):::200")
            #expect(heightOnly.resizingType == .fillDown && heightOnly.height == 200)
        }
        let auto = try Self.options("rs:auto:300:200:0")
        #expect(auto.resizingType == .auto && auto.width == 300 && auto.height == 200 && !auto.enlarge)
        let extended = try Self.options("rs:fit:100:100:0:1:so:5:10")
        #expect(extended.extend == .init(isEnabled: true, gravity: Gravity(kind: .south, x: 5, y: 10)))
    }

    @Test("size / s, resizing_type / rt, width / w, height / h, min-width / mw, min-height / mh")
    func sizes() throws {
        #expect(try Self.options("size:100:200:t").width == 100)
        #expect(try Self.options("s:100:200:true").enlarge)
        for type in ProcessingOptions.ResizingType.allCases {
            #expect(try Self.options("resizing_type:\(type.rawValue)").resizingType == type)
            #expect(try Self.options("rt:\(type.rawValue)").resizingType == type)
        }
        #expect(try Self.options("width:120/height:80").width == 120)
        #expect(try Self.options("w:120/h:80").height == 80)
        #expect(try Self.options("min-width:64/mh:32").minWidth == 64)
        #expect(try Self.options("mw:64/min-height:32").minHeight == 32)
    }

    @Test("zoom / z with one or two factors, dpr, enlarge / el")
    func zoomAndDPR() throws {
        let one = try Self.options("zoom:1.5")
        #expect(one.zoomX == 1.5 && one.zoomY == 1.5)
        let two = try Self.options("z:2:0.5")
        #expect(two.zoomX == 2 && two.zoomY == 0.5)
        #expect(try Self.options("dpr:2.5").dpr == 2.5)
        #expect(try Self.options("enlarge:1").enlarge && !(try Self.options("el:0").enlarge))
    }

    /// Booleans are "1", "t" or "true" (and Go's other spellings); anything else is false.
    @Test("booleans: 1 t T true True TRUE are true; 0 f false and anything else false", arguments: [
        ("1", true), ("t", true), ("T", true), ("true", true), ("True", true), ("TRUE", true),
        ("0", false), ("f", false), ("false", false), ("False", false), ("yes", false), ("", false),
    ])
    func booleans(_ text: String, _ value: Bool) throws {
        #expect(try Self.options("el:\(text)").enlarge == value)
    }

    @Test("extend / ex and extend_aspect_ratio / extend_ar / exar with gravity and offsets")
    func extend() throws {
        #expect(try Self.options("extend:1:noea:3:4").extend == .init(isEnabled: true, gravity: Gravity(kind: .northEast, x: 3, y: 4)))
        #expect(try Self.options("ex:1").extend.isEnabled)
        for name in ["extend_aspect_ratio", "extend_ar", "exar"] {
            #expect(try Self.options("\(name):1:we").extendAspectRatio == .init(isEnabled: true, gravity: Gravity(kind: .west)))
        }
        #expect(try Self.options("ex:1:fp:0.2:0.3").extend.gravity == Gravity(kind: .focusPoint, x: 0.2, y: 0.3))
    }

    @Test("gravity / g: every anchor, offsets absolute and relative, fp, sm; empty offsets keep earlier ones")
    func gravity() throws {
        for kind in Gravity.Kind.anchors {
            #expect(try Self.options("g:\(kind.rawValue)").gravity.kind == kind)
            #expect(try Self.options("gravity:\(kind.rawValue):10:0.25").gravity == Gravity(kind: kind, x: 10, y: 0.25))
        }
        #expect(try Self.options("g:sm").gravity == Gravity(kind: .smart))
        #expect(try Self.options("g:fp:0.5:0.75").gravity == Gravity(kind: .focusPoint, x: 0.5, y: 0.75))
        #expect(try Self.options("g:ce:5:6/g:no::10").gravity == Gravity(kind: .north, x: 5, y: 10))
    }

    @Test("crop / c: absolute, relative, 0 for the whole side, its own gravity")
    func crop() throws {
        let plain = try Self.options("crop:100:200")
        #expect(plain.crop == .init(width: 100, height: 200, gravity: nil))
        let relative = try Self.options("c:0.5:0:nowe:10:20")
        #expect(relative.crop == .init(width: 0.5, height: 0, gravity: Gravity(kind: .northWest, x: 10, y: 20)))
        #expect(try Self.options("c:300").crop == .init(width: 300, height: 0, gravity: nil))
        #expect(try Self.options("c:300:300:sm").crop?.gravity == Gravity(kind: .smart))
    }

    @Test("trim / t: threshold, colour, equal_hor, equal_ver; an empty threshold turns it off")
    func trim() throws {
        let full = try Self.options("trim:10:ffddee:1:t")
        #expect(full.trim == .init(threshold: 10, color: RGBA(r: 255, g: 221, b: 238), equalHorizontal: true, equalVertical: true))
        #expect(try Self.options("t:25").trim == .init(threshold: 25))
        #expect(try Self.options("t:10:::1").trim?.equalVertical == true)
        #expect(try Self.options("t:10/t:").trim == nil)
    }

    /// "padding:%top:%right:%bottom:%left … like CSS".
    @Test("padding / pd in CSS order", arguments: [
        ("pd:10", [10, 10, 10, 10]), ("padding:10:20", [10, 20, 10, 20]), ("pd:10:20:30", [10, 20, 30, 20]),
        ("pd:1:2:3:4", [1, 2, 3, 4]), ("pd::5", [0, 5, 0, 5]),
    ])
    func padding(_ text: String, _ expected: [Int]) throws {
        let p = try Self.options(text).padding
        #expect([p.top, p.right, p.bottom, p.left] == expected)
    }

    @Test("auto_rotate / ar, rotate / rot (multiples of 90, negative normalised), flip / fl")
    func orientation() throws {
        #expect(try Self.options("auto_rotate:0").autoRotate == false)
        #expect(try Self.options("ar:1").autoRotate == true)
        #expect(try Self.options("rotate:90").rotate == 90)
        #expect(try Self.options("rot:450").rotate == 90)
        #expect(try Self.options("rot:-90").rotate == 270)
        let flip = try Self.options("flip:1:0")
        #expect(flip.flipHorizontal && !flip.flipVertical)
        #expect(try Self.options("fl::1").flipVertical)
    }

    @Test("background / bg as R:G:B or hex; empty turns it off")
    func background() throws {
        #expect(try Self.options("background:128:129:130").background == RGBA(r: 128, g: 129, b: 130))
        #expect(try Self.options("bg:ffddee").background == RGBA(r: 255, g: 221, b: 238))
        #expect(try Self.options("bg:f0a").background == RGBA(r: 255, g: 0, b: 170))
        #expect(try Self.options("bg:fff/bg:").background == nil)
    }

    @Test("blur / bl, sharpen / sh, pixelate / pix")
    func effects() throws {
        #expect(try Self.options("blur:0.2").blur == 0.2)
        #expect(try Self.options("bl:5").blur == 5)
        #expect(try Self.options("sharpen:0.5/sh:0.7").sharpen == 0.7)
        #expect(try Self.options("pixelate:8").pixelate == 8)
        #expect(try Self.options("pix:3").pixelate == 3)
    }

    @Test("watermark / wm: opacity, position (incl. re), offsets, scale")
    func watermark() throws {
        #expect(try Self.options("watermark:0.5:soea:10:20:0.6").watermark ==
            .init(opacity: 0.5, position: .southEast, x: 10, y: 20, scale: 0.6))
        #expect(try Self.options("wm:1:re").watermark?.position == .replicate)
        #expect(try Self.options("wm:0.3").watermark == .init(opacity: 0.3))
        #expect(try Self.options("wm:1:ce:0:0:0").watermark?.scale == 0)
    }

    @Test("quality / q, format_quality / fq, max_bytes / mb, format / f / ext and the extension")
    func output() throws {
        #expect(try Self.options("quality:55").quality == 55)
        #expect(try Self.options("q:0").quality == 0)
        #expect(try Self.options("format_quality:webp:60:jpg:90").formatQuality == [.webp: 60, .jpeg: 90])
        #expect(try Self.options("fq:avif:40").formatQuality == [.avif: 40])
        #expect(try Self.options("max_bytes:10000/mb:20000").maxBytes == 20000)
        for name in ["format", "f", "ext"] { #expect(try Self.options("\(name):webp").format == .webp) }
        // The extension wins over the option, as the documentation says.
        let url = try ProxyURL.parse("/unsafe/f:webp/\(Self.base64).png", language: ProxyLanguage())
        #expect(url.options.format == .png)
        #expect(try ProxyURL.parse("/unsafe/plain/\(Self.source)@avif", language: ProxyLanguage()).options.format == .avif)
        // raw: the extension is ignored.
        #expect(try ProxyURL.parse("/unsafe/raw:1/\(Self.base64).png", language: ProxyLanguage()).options.format == nil)
    }

    @Test("strip_metadata / sm, keep_copyright / kcr, strip_color_profile / scp, skip_processing / skp, raw, cachebuster / cb")
    func handling() throws {
        #expect(try Self.options("strip_metadata:true").stripMetadata == true)
        #expect(try Self.options("sm:0").stripMetadata == false)
        #expect(try Self.options("keep_copyright:0/kcr:1").keepCopyright == true)
        #expect(try Self.options("strip_color_profile:0").stripColorProfile == false)
        #expect(try Self.options("scp:1").stripColorProfile == true)
        #expect(try Self.options("skip_processing:jpg:png/skp:gif").skipProcessing == [.jpeg, .png, .gif])
        #expect(try Self.options("raw:1").raw)
        #expect(try Self.options("cachebuster:123").cachebuster == "123")
        #expect(try Self.options("cb:abc").cachebuster == "abc")
    }

    @Test("expires / exp: a time in the future passes; one in the past is 404 expired")
    func expires() throws {
        #expect(try Self.options("expires:32503669200").expires == 32_503_669_200)
        #expect(try Self.options("exp:0").expires == 0)
        #expect(throws: ProxyError.expired) { try Self.options("exp:1609448400") }
        #expect(ProxyError.expired.status == 404)
    }

    @Test("filename / fn, plain and base64; return_attachment / att")
    func filename() throws {
        #expect(try Self.options("filename:face").filename == "face")
        #expect(try Self.options("fn:\(ProxyHarness.base64URL("my face")):1").filename == "my face")
        #expect(try Self.options("return_attachment:1").returnAttachment)
        #expect(try Self.options("att:t").returnAttachment)
    }

    @Test("preserve_hdr / ph and enforce_thumbnail / eth are accepted")
    func accepted() throws {
        #expect(try Self.options("preserve_hdr:1/eth:1").preserveHDR)
        #expect(try Self.options("ph:0/enforce_thumbnail:1").enforceThumbnail)
    }

    @Test("later options win, key by key")
    func laterWins() throws {
        let o = try Self.options("rs:fill:100:100/w:200/q:50/quality:60")
        #expect(o.resizingType == .fill && o.width == 200 && o.height == 100 && o.quality == 60)
    }
}
