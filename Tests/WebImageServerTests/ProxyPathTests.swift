import Foundation
import Testing
import WebImageCodecs
@testable import WebImageServer

@Suite("Proxy path grammar", .timeLimit(.minutes(1)))
struct ProxyPathTests {
    let source = ProxyHarness.base64URL("http://example.com/a.jpg")

    @Test func parsesEveryOption() throws {
        let path = try ProxyPath.parse("/sig/rs:fill-down:300:200/q:70/f:webp/bl:2.5/dpr:2/g:no/\(source)")
        #expect(path.signature == "sig")
        #expect(path.signedPart == "/rs:fill-down:300:200/q:70/f:webp/bl:2.5/dpr:2/g:no/\(source)")
        #expect(path.options.mode == .fillDown)
        #expect(path.options.pixelBox == PixelSize(width: 600, height: 400))
        #expect(path.options.quality == 70)
        #expect(path.options.format == .webp)
        #expect(path.options.blur == 2.5)
        #expect(path.options.gravity == .north)
        #expect(path.source.absoluteString == "http://example.com/a.jpg")
    }

    @Test func theExtensionNamesTheFormat() throws {
        #expect(try ProxyPath.parse("/unsafe/rs:fit:10:10/\(source).png").options.format == .png)
        #expect(try ProxyPath.parse("/unsafe/\(source).jpg").options.format == .jpeg)
        #expect(try ProxyPath.parse("/unsafe/\(source)").options.format == nil)
    }

    @Test(arguments: [
        "/unsafe/zz:1/SRC",  // unknown option
        "/unsafe/rs:stretch:10:10/SRC",  // unknown resizing type
        "/unsafe/rs:fit:10:10:1:1/SRC",  // too many arguments
        "/unsafe/rs:fit:-1:10/SRC",
        "/unsafe/rs:fit:99999:10/SRC",  // enormous width
        "/unsafe/rs:fit:10:99999999999999999999/SRC",  // past Int
        "/unsafe/q:0/SRC", "/unsafe/q:101/SRC", "/unsafe/q:abc/SRC",
        "/unsafe/f:tiff/SRC", "/unsafe/bl:nan/SRC", "/unsafe/bl:1e9/SRC",
        "/unsafe/dpr:0.5/SRC", "/unsafe/dpr:5/SRC", "/unsafe/g:xx/SRC",
        "/unsafe/SRC.bmp",  // unknown extension
        "/unsafe/%zz/SRC",  // malformed percent-encoding
        "/unsafe/rs:fit:1:1/%E0%A4%A",  // cut-off percent-encoding
        "/unsafe/rs:fit:1:1/@@@notbase64",  // not base64url
        "/unsafe/rs:fit:1:1/" + ProxyHarness.base64URL("file:///etc/passwd"),  // not http(s)
        "/unsafe/rs:fit:1:1/" + ProxyHarness.base64URL("not a url"),
        "/unsafe/", "/unsafe", "/",
    ])
    func refusesMalformedPaths(_ template: String) {
        let path = template.replacingOccurrences(of: "SRC", with: source)
        #expect(throws: ProxyError.self) { try ProxyPath.parse(path) }
        do {
            _ = try ProxyPath.parse(path)
        } catch {
            #expect(error.status == 400)
            #expect(error.name == "invalidOptions")
        }
    }

    @Test func negotiatesFromAccept() {
        let coder = ImageCodersManager.shared
        func still(_ accept: String?) -> ImageFormat {
            OutputChoice(named: nil, accept: accept, coder: coder).resolve(source: .jpeg, frameCount: 1, hasAlpha: false).0
        }
        #expect(still("image/webp,image/*,*/*;q=0.8") == .webp)
        #expect(still("image/webp;q=0, image/*") == .jpeg)
        #expect(still("image/png,*/*") == .jpeg)
        #expect(still(nil) == .jpeg)
        #expect(still("image/avif,image/webp") == (coder.canEncode(to: .avif) ? .avif : .webp))
        // An animated source stays animated: WebP when accepted (AVIF never), else GIF.
        let browser = OutputChoice(named: nil, accept: "image/avif,image/webp,image/*", coder: coder)
        #expect(browser.resolve(source: .gif, frameCount: 4, hasAlpha: false) == (.webp, true))
        let old = OutputChoice(named: nil, accept: "image/*", coder: coder)
        #expect(old.resolve(source: .webp, frameCount: 4, hasAlpha: false) == (.gif, true))
        // A named format wins; only GIF and WebP keep frames.
        let named = OutputChoice(named: .png, accept: "image/webp", coder: coder)
        #expect(named.resolve(source: .gif, frameCount: 4, hasAlpha: true) == (.png, false))
        #expect(!named.isNegotiated && named.cacheKey == "png")
        #expect(browser.cacheKey == (coder.canEncode(to: .avif) ? "auto+avif+webp" : "auto+webp"))
    }
}
