import Foundation
import Testing
import WebImageCodecs
import WebImageServer

/// `GET /info/{signature}/{options}/{source}` as imgproxy Pro documents it
/// (docs/usage/getting_info.mdx): the option names and short names, the defaults (size,
/// format, dimensions, EXIF, IPTC, XMP on; everything computed from pixels off), the JSON
/// keys and their types, `expires`, presets, and the signature, required as for images.
/// Sources are files under a local root; expected values are worked out here from the
/// files (and, for the hashes, by the PyPI reference packages).
@Suite("/info endpoint", .serialized)
struct InfoEndpointTests {
    static func config(_ root: LocalRoot) -> ProxyConfig {
        var config = ProxyConfig.testing
        config.localRoot = root.root
        return config
    }

    static func json(_ answer: ProxyHarness.Answer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
    }

    /// `/info/unsafe/{options}/plain/local:///{name}`.
    static func path(_ options: String, _ name: String) -> String {
        "/info/unsafe" + (options.isEmpty ? "" : "/" + options) + "/plain/local:///" + name
    }

    static let allOff = "s:0/f:0/d:0/exif:0/iptc:0/xmp:0"

    @Test("No options: imgproxy's default keys, with the file's facts")
    func defaults() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        try root.add(Fixtures.corpus.appendingPathComponent("jpeg/exif-orientation/Landscape_6.jpg"), as: "l6.jpg")
        try await ProxyHarness.with(Self.config(root)) { proxy in
            let answer = try await proxy.get(Self.path("", "a.png"))
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type") == "application/json")
            let object = try Self.json(answer)
            #expect(Set(object.keys) == ["size", "format", "mime_type", "width", "height", "orientation", "exif", "iptc", "xmp"])
            let bytes = try Data(contentsOf: root.root.appendingPathComponent("a.png")).count
            #expect(object["size"] as? Int == bytes)
            #expect(object["format"] as? String == "png")
            #expect(object["mime_type"] as? String == "image/png")
            #expect(object["width"] as? Int == 32)
            #expect(object["height"] as? Int == 32)
            #expect(object["orientation"] as? Int == 1)
            #expect((object["exif"] as? [String: Any])?.isEmpty == true)
            #expect((object["iptc"] as? [String: Any])?.isEmpty == true)
            #expect((object["xmp"] as? [String: Any])?.isEmpty == true)

            // Stored 1200×1800 with EXIF orientation 6: reported as displayed.
            let jpeg = try Self.json(try await proxy.get(Self.path("", "l6.jpg")))
            #expect(jpeg["format"] as? String == "jpeg")
            #expect(jpeg["mime_type"] as? String == "image/jpeg")
            #expect(jpeg["width"] as? Int == 1800)
            #expect(jpeg["height"] as? Int == 1200)
            #expect(jpeg["orientation"] as? Int == 6)
            let size = try Data(contentsOf: root.root.appendingPathComponent("l6.jpg")).count
            #expect(jpeg["size"] as? Int == size)
        }
    }

    @Test("Each default key can be turned off; long and short names are the same option")
    func switches() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        try await ProxyHarness.with(Self.config(root)) { proxy in
            let none = try Self.json(try await proxy.get(Self.path(Self.allOff, "a.png")))
            #expect(none.isEmpty)
            let long = try await proxy.get(Self.path("size:0/format:false/dimensions:f/exif:0/iptc:0/xmp:0", "a.png"))
            #expect(try Self.json(long).isEmpty)
            let some = try Self.json(try await proxy.get(Self.path("f:0/exif:0/iptc:0/xmp:0", "a.png")))
            #expect(Set(some.keys) == ["size", "width", "height", "orientation"])

            let short = try await proxy.get(Self.path(Self.allOff + "/bh:4:3/th:1/avg:1/pn:1/a:1:1", "a.png"))
            let full = try await proxy.get(Self.path(
                "size:0/format:0/dimensions:0/exif:0/iptc:0/xmp:0/blurhash:4:3/thumb_hash:1/average:1/pages_number:1/alpha:1:1", "a.png"))
            #expect(short.status == 200)
            #expect(short.body == full.body)
            #expect(Set(try Self.json(short).keys) == ["blurhash", "thumb_hash", "average", "pages_number", "alpha", "transparent"])
        }
    }

    @Test("BlurHash, ThumbHash and the average colour of the source's pixels")
    func placeholders() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        let gradient = try #require(PlaceholderReferenceTests.images.first { $0.name == "gradient" })
        #expect(gradient.buffer == LocalRoot.gradient)
        let reference = try PlaceholderReferenceTests.reference(gradient)
        try await ProxyHarness.with(Self.config(root)) { proxy in
            for (x, y) in [(4, 3), (1, 1), (9, 9)] {
                let object = try Self.json(try await proxy.get(Self.path(Self.allOff + "/bh:\(x):\(y)", "a.png")))
                #expect(object["blurhash"] as? String == reference.blurhash["\(x)x\(y)"])
            }
            let object = try Self.json(try await proxy.get(Self.path(Self.allOff + "/th:1/avg:1", "a.png")))
            #expect(object["thumb_hash"] as? String == reference.thumbhash)
            // Mean of 8x over x in 0…31 is 124; of 8y likewise; B is 128 everywhere.
            let average = try #require(object["average"] as? [String: Int])
            #expect(average == ["R": 124, "G": 124, "B": 128, "A": 255])
            // 0:0 is off, as imgproxy's default.
            #expect(try Self.json(try await proxy.get(Self.path(Self.allOff + "/bh:0:0", "a.png"))).isEmpty)
            #expect(try await proxy.get(Self.path(Self.allOff + "/bh:10:3", "a.png")).status == 400)
        }
    }

    @Test("Colours: palette and dominant colours have imgproxy's shapes")
    func colors() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        try await ProxyHarness.with(Self.config(root)) { proxy in
            let object = try Self.json(try await proxy.get(Self.path(Self.allOff + "/p:4/dc:1:1", "a.png")))
            let palette = try #require(object["palette"] as? [[String: Int]])
            #expect((1...4).contains(palette.count))
            for color in palette {
                #expect(Set(color.keys) == ["R", "G", "B", "A"])
                #expect(color.values.allSatisfy { (0...255).contains($0) })
            }
            let dominant = try #require(object["dominant_colors"] as? [String: [String: Int]])
            let names: Set = ["vibrant", "light_vibrant", "dark_vibrant", "muted", "light_muted", "dark_muted"]
            #expect(!dominant.isEmpty && Set(dominant.keys).isSubset(of: names))
            for color in dominant.values { #expect(Set(color.keys) == ["R", "G", "B"]) }
            #expect(try await proxy.get(Self.path(Self.allOff + "/p:1", "a.png")).status == 400)
            #expect(try await proxy.get(Self.path(Self.allOff + "/p:257", "a.png")).status == 400)
        }
    }

    @Test("Frames, alpha and transparency")
    func framesAndAlpha() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        try root.add(Fixtures.corpus.appendingPathComponent("gif/gif-test-suite/animated_loop.gif"), as: "loop.gif")
        var triangle = [UInt8]()
        for y in 0..<16 {
            for x in 0..<16 { triangle += [255, UInt8(16 * x), UInt8(16 * y), x + y < 16 ? 255 : 0] }
        }
        try LocalRoot.png(try #require(PixelBuffer(width: 16, height: 16, bytes: triangle)))
            .write(to: root.root.appendingPathComponent("triangle.png"))
        try await ProxyHarness.with(Self.config(root)) { proxy in
            let gif = try Self.json(try await proxy.get(Self.path(Self.allOff + "/pn:1", "loop.gif")))
            #expect(gif["pages_number"] as? Int == 4)
            let still = try Self.json(try await proxy.get(Self.path(Self.allOff + "/pn:1/a:1:1", "a.png")))
            #expect(still["pages_number"] as? Int == 1)
            #expect(still["transparent"] as? Bool == false)
            let clear = try Self.json(try await proxy.get(Self.path(Self.allOff + "/a:1:1", "triangle.png")))
            #expect(clear["alpha"] as? Bool == true)
            #expect(clear["transparent"] as? Bool == true)
            // A page past the last is refused, not a crash.
            #expect(try await proxy.get(Self.path(Self.allOff + "/pg:9/avg:1", "loop.gif")).status == 422)
            #expect(try await proxy.get(Self.path(Self.allOff + "/pg:2/avg:1", "loop.gif")).status == 200)
        }
    }

    @Test("crop reports the window processing would cut, relative to the image")
    func crop() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        try await ProxyHarness.with(Self.config(root)) { proxy in
            let corner = try Self.json(try await proxy.get(Self.path(Self.allOff + "/c:16:16:nowe", "a.png")))
            #expect(corner["crop"] as? [String: Double] == ["left": 0, "top": 0, "width": 0.5, "height": 0.5])
            // Centred 16×8 in 32×32: offsets (32 − 16) / 2 = 8 and (32 − 8) / 2 = 12.
            let centre = try Self.json(try await proxy.get(Self.path(Self.allOff + "/crop:16:8:ce", "a.png")))
            #expect(centre["crop"] as? [String: Double] == ["left": 0.25, "top": 0.375, "width": 0.5, "height": 0.25])
        }
    }

    @Test("expires, unknown and unsupported options, presets")
    func optionsAndPresets() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        var config = Self.config(root)
        config.infoPresets = try Presets(entries: ["default=exif:0/iptc:0/xmp:0", "colors=avg:1/s:0"])
        try await ProxyHarness.with(config) { proxy in
            let now = Int(Date().timeIntervalSince1970)
            let expired = try await proxy.get(Self.path("exp:\(now - 60)", "a.png"))
            #expect(expired.status == 404)
            #expect(expired.errorCode?.name == "expired")
            #expect(try await proxy.get(Self.path("exp:\(now + 3600)", "a.png")).status == 200)
            #expect(try await proxy.get(Self.path("nonsense:1", "a.png")).status == 400)
            // imgproxy Pro options this server does not compute say so (400), never a wrong answer.
            let unsupported = try await proxy.get(Self.path("cs:1", "a.png"))
            #expect(unsupported.status == 400)
            #expect(String(decoding: unsupported.body, as: UTF8.self).contains("does not support"))
            // The default preset applies to every request; a named one on request.
            let plain = try Self.json(try await proxy.get(Self.path("", "a.png")))
            #expect(Set(plain.keys) == ["size", "format", "mime_type", "width", "height", "orientation"])
            let colors = try Self.json(try await proxy.get(Self.path("pr:colors", "a.png")))
            #expect(Set(colors.keys) == ["format", "mime_type", "width", "height", "orientation", "average"])
            #expect(try await proxy.get(Self.path("pr:nothere", "a.png")).status == 400)
        }
    }

    @Test("A signature is required as for images; ETag and 304")
    func signed() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        var config = Self.config(root)
        let key = Array("info-key".utf8), salt = Array("info-salt".utf8)
        config.keys = [try #require(URLSigner.KeyPair(
            hexKey: key.map { String(format: "%02x", $0) }.joined(), hexSalt: salt.map { String(format: "%02x", $0) }.joined()))]
        try await ProxyHarness.with(config) { proxy in
            let signedPart = "/bh:4:3/plain/local:///a.png"
            let good = "/info" + ProxyHarness.signedPath(signedPart, key: key, salt: salt)
            let answer = try await proxy.get(good)
            #expect(answer.status == 200)
            #expect(try Self.json(answer)["blurhash"] is String)

            #expect(try await proxy.get("/info/unsafe" + signedPart).status == 403)
            // A signature of other options does not open these.
            let other = ProxyHarness.signedPath("/bh:3:3/plain/local:///a.png", key: key, salt: salt)
            let forged = "/info/" + other.dropFirst().split(separator: "/")[0] + signedPart
            let refused = try await proxy.get(forged)
            #expect(refused.status == 403)
            #expect(refused.errorCode?.name == "invalidSignature")
            // An image URL's signature is the same HMAC: /info accepts what signs its path.
            #expect(try await proxy.get("/info" + ProxyHarness.signedPath("/plain/local:///a.png", key: key, salt: salt)).status == 200)

            let etag = try #require(answer.header("ETag"))
            #expect(try await proxy.get(good, headers: [("If-None-Match", etag)]).status == 304)
            let otherETag = try await proxy.get("/info" + other).header("ETag")
            #expect(otherETag != nil && otherETag != etag)
        }
    }
}
