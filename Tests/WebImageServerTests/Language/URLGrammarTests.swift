import Foundation
import Testing
import WebImageCodecs
@testable import WebImageServer

/// imgproxy's URL grammar (docs/usage/processing.mdx "Source URL", docs/usage/presets.mdx,
/// docs/configuration/options.mdx "URL signature", "Presets", "Miscellaneous"): source
/// forms, presets, the path prefix, the argument separator, presets-only mode, and the
/// malformed forms, each a 400 with a JSON error (imgproxy answers 404).
@Suite("imgproxy language: URLs", .timeLimit(.minutes(1)))
struct URLGrammarTests {
    static let source = "http://example.com/images/curiosity.jpg"

    @Test("a base64 source, split by slashes anywhere, padding tolerated, with and without .ext")
    func base64Sources() throws {
        // The documentation's own example: http://example.com/images/curiosity.jpg.
        let split = try ProxyURL.parse("/unsafe/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png", language: ProxyLanguage())
        #expect(split.source.absoluteString == Self.source)
        #expect(split.options.format == .png)
        let longer = Self.source + "?v=1"
        let padded = Data(longer.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        #expect(padded.hasSuffix("="))
        #expect(try ProxyURL.parse("/unsafe/rs:fit:10:10/\(padded)", language: ProxyLanguage()).source.absoluteString == longer)
    }

    @Test("a plain source, percent-encoded, with @ext; an escaped query survives")
    func plainSources() throws {
        let url = try ProxyURL.parse("/unsafe/rs:fit:10:10/plain/\(Self.source)@png", language: ProxyLanguage())
        #expect(url.source.absoluteString == Self.source && url.options.format == .png)
        let query = try ProxyURL.parse("/unsafe/plain/http%3A%2F%2Fexample.com%2Fa.jpg%3Fv%3D1%26w%3D2", language: ProxyLanguage())
        #expect(query.source.absoluteString == "http://example.com/a.jpg?v=1&w=2")
        // A proxy that merged "//" into "/": repaired, as imgproxy does.
        let merged = try ProxyURL.parse("/unsafe/plain/http:/example.com/a.jpg", language: ProxyLanguage())
        #expect(merged.source.absoluteString == "http://example.com/a.jpg")
        // A CDN that escaped the colons of the options.
        let escaped = try ProxyURL.parse("/unsafe/rs%3Afill%3A10%3A20/plain/\(Self.source)", language: ProxyLanguage())
        #expect(escaped.options.resizingType == .fill && escaped.options.height == 20)
        #expect(escaped.signedPath == "/rs:fill:10:20/plain/\(Self.source)")
    }

    @Test("the base64 source may carry an SEO file name when the server says so")
    func filenameInBase64() throws {
        var language = ProxyLanguage()
        language.base64URLIncludesFilename = true
        let b64 = ProxyHarness.base64URL("http://example.com/puppy.jpg")
        let url = try ProxyURL.parse("/unsafe/\(b64).png/puppy.jpg", language: language)
        #expect(url.source.absoluteString == "http://example.com/puppy.jpg" && url.options.format == .png)
    }

    @Test("presets: preset / pr expands in place, default applies first, URL options win, recursion stops")
    func presets() throws {
        var language = ProxyLanguage()
        language.presets = try Presets(entries: [
            "default=quality:50/rs:fit:200:200", "sharp=sharpen:0.7", "square=rs:fill:100:100",
            "# a comment", "", "loop=pr:loop/bl:1", "both=pr:sharp:square",
        ])
        let url = try ProxyURL.parse("/unsafe/pr:square/w:300/q:70/plain/\(Self.source)", language: language)
        #expect(url.options.quality == 70)  // the URL beats the default preset
        #expect(url.options.resizingType == .fill && url.options.width == 300 && url.options.height == 100)
        #expect(url.options.usedPresets == ["default", "square"])
        let chain = try ProxyURL.parse("/unsafe/preset:both/plain/\(Self.source)", language: language)
        #expect(chain.options.sharpen == 0.7 && chain.options.width == 100)
        #expect(try ProxyURL.parse("/unsafe/pr:loop/plain/\(Self.source)", language: language).options.blur == 1)
        #expect(throws: ProxyError.self) { try ProxyURL.parse("/unsafe/pr:nope/plain/\(Self.source)", language: language) }
    }

    @Test("presets-only mode: the first segment is a list of presets; the extension still works")
    func onlyPresets() throws {
        var language = ProxyLanguage()
        language.onlyPresets = true
        language.presets = try Presets(entries: ["thumbnail=rs:fill:100:100", "blurry=bl:4", "watermarked=wm:0.5"])
        let url = try ProxyURL.parse("/unsafe/thumbnail:blurry:watermarked/plain/\(Self.source)@png", language: language)
        #expect(url.options.width == 100 && url.options.blur == 4 && url.options.watermark?.opacity == 0.5)
        #expect(url.options.format == .png)
        #expect(throws: ProxyError.self) { try ProxyURL.parse("/unsafe/rs:fit:10:10/plain/\(Self.source)", language: language) }
    }

    @Test("malformed preset definitions are refused at start", arguments: [
        "noequals", "=rs:fit:10:10", "name=", "name=blur", "a=b=c", "bad=rs:fit:-1:-2",
    ])
    func badPresets(_ entry: String) throws {
        var language = ProxyLanguage()
        let error = #expect(throws: ProxyError.self) {
            language.presets = try Presets(entries: [entry])
            try language.validate()
        }
        // Issue #50 item 6: the start-up error names the preset (or quotes the entry).
        let name = entry.split(separator: "=", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        #expect(error?.message.contains("Preset") == true && error?.message.contains(name.isEmpty ? entry : name) == true,
                "\(error?.message ?? "")")
    }

    @Test("a path prefix and another argument separator")
    func prefixAndSeparator() throws {
        var language = ProxyLanguage()
        language.pathPrefix = "/images"
        language.separator = ","
        let url = try ProxyURL.parse("/images/unsafe/size,100,100,1/plain/\(Self.source)", language: language)
        #expect(url.options.width == 100 && url.options.height == 100 && url.options.enlarge)
        #expect(throws: ProxyError.notFound) { try ProxyURL.parse("/unsafe/size,100,100/plain/\(Self.source)", language: language) }
    }

    @Test("the base URL is prepended to relative sources")
    func baseURL() throws {
        var language = ProxyLanguage()
        language.baseURL = "http://images.example/"
        #expect(try ProxyURL.parse("/unsafe/plain/a/b.jpg", language: language).source.absoluteString == "http://images.example/a/b.jpg")
        #expect(try ProxyURL.parse("/unsafe/plain/http://images.example/c.jpg", language: language).source.absoluteString
            == "http://images.example/c.jpg")
    }

    @Test("allowed processing options limit URLs, not presets")
    func allowedOptions() throws {
        var language = ProxyLanguage()
        language.allowedOptionNames = ["w", "h", "pr"]
        language.presets = try Presets(entries: ["test1=blur:0.2"])
        #expect(try ProxyURL.parse("/unsafe/w:100/h:200/plain/\(Self.source)", language: language).options.width == 100)
        #expect(try ProxyURL.parse("/unsafe/pr:test1/plain/\(Self.source)", language: language).options.blur == 0.2)
        #expect(throws: ProxyError.self) { try ProxyURL.parse("/unsafe/w:100/blur:10/plain/\(Self.source)", language: language) }
    }

    @Test("security options: 403 unless allowed; then parsed")
    func securityOptions() throws {
        for option in ["max_src_resolution:10", "msr:1", "max_src_file_size:100", "msfs:1", "max_animation_frames:3", "maf:2",
                       "max_animation_frame_resolution:1", "mafr:1", "max_result_dimension:100", "mrd:10"] {
            #expect(throws: ProxyError.securityOptionNotAllowed(String(option.prefix { $0 != ":" }))) {
                try ProxyURL.parse("/unsafe/\(option)/plain/\(Self.source)", language: ProxyLanguage())
            }
        }
        var language = ProxyLanguage()
        language.allowsSecurityOptions = true
        let url = try ProxyURL.parse("/unsafe/msr:0.5/maf:3/mrd:100/plain/\(Self.source)", language: language)
        #expect(url.options.maxSourceResolution == 500_000 && url.options.maxAnimationFrames == 3 && url.options.maxResultDimension == 100)
    }

    @Test("imgproxy Pro options are refused with a message that says so", arguments: [
        "adjust:10:1:1", "a:1", "brightness:10", "br:10", "contrast:1", "saturation:1", "monochrome:1", "duotone:1",
        "ush:1", "watermark_url:aGk", "watermark_text:aGk", "style:aGk", "page:1", "pages:2", "dpi:300", "autoquality:size",
        "jpeg_options:1", "resizing_algorithm:lanczos3", "objects_position:ce", "crop_aspect_ratio:1", "background_alpha:0.5",
        "gradient:1", "colorize:1", "blur_areas:1", "fallback_image_url:aGk", "hashsum:sha256:x", "cache_tags:a",
    ])
    func proOptions(_ option: String) {
        do {
            _ = try ProxyURL.parse("/unsafe/\(option)/plain/\(Self.source)", language: ProxyLanguage())
            Issue.record("\(option) was accepted")
        } catch {
            #expect(error.status == 400)
            #expect(error.message.contains("Pro"), "\(error.message)")
        }
    }

    @Test("malformed forms are 400 invalidOptions", arguments: [
        "zz:1/SRC", "rs:stretch:10:10/SRC", "rs:fit:10:10:1:1:so:1:1:9/SRC", "rs:fit:-1:10/SRC", "w:1.5/SRC", "w:-1/SRC",
        "q:101/SRC", "q:abc/SRC", "fq:webp/SRC", "fq:bad:50/SRC", "f:tiff2/SRC", "bl:nan/SRC", "bl:-1/SRC", "dpr:0/SRC",
        "z:0/SRC", "g:xx/SRC", "g:fp:1.5:0.5/SRC", "g:fp:0.5/SRC", "g:sm:1/SRC", "g:re/SRC", "ex:1:sm/SRC", "ex:1:re/SRC",
        "ex:1:/SRC", "c::100/SRC", "c:100:200:re/SRC", "bg:1:2/SRC", "bg:256:0:0/SRC", "bg:#fff/SRC", "wm:1.5/SRC",
        "wm:1:ch/SRC", "rot:45/SRC", "skp:jpg:bad_format/SRC", "exp:abc/SRC", "t:-1/SRC", "t:10:zzz/SRC", "fn:@@@:1/SRC",
        "pd:-1/SRC", "mb:-5/SRC", "pix:-1/SRC", "sh:x/SRC", "fill/300/300/SRC",
        "SRC.bmp2", "plain/", "plain/a@b@c", "plain/%zz", "@@@notbase64", "rs:fit:1:1/" + "aGVsbG8gd29ybGQ",
    ])
    func malformed(_ template: String) {
        let source = ProxyHarness.base64URL(Self.source)
        let path = "/unsafe/" + template.replacingOccurrences(of: "SRC", with: source)
        do {
            _ = try ProxyURL.parse(path, language: ProxyLanguage())
            Issue.record("\(path) was accepted")
        } catch {
            #expect(error.status == 400, "\(path): \(error.status) \(error.message)")
            #expect(error.name == "invalidOptions")
        }
    }

    @Test("a path that is no proxy URL is 404", arguments: ["/", "/unsafe", "/unsafe/", "/robots.txt"])
    func notProxyURLs(_ path: String) {
        #expect(throws: ProxyError.notFound) { try ProxyURL.parse(path, language: ProxyLanguage()) }
    }
}
