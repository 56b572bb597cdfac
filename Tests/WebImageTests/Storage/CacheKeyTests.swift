import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("CacheKey: derived keys, scale, file names")
struct CacheKeyTests {
    @Test("a transformed key inserts the suffix before the extension and keeps query and fragment", arguments: [
        ("http://foo/image.png?foo=bar#mark", "http://foo/image-T.png?foo=bar#mark"),
        ("http://foo/image.png", "http://foo/image-T.png"),
        ("https://foo.com/a/b/image.jpeg#x", "https://foo.com/a/b/image-T.jpeg#x"),
        ("http://foo/image", "http://foo/image-T"),
        ("http://foo/image?a=1.png", "http://foo/image?a=1.png-T"),
        ("http://foo.com", "http://foo.com-T"),
        ("/tmp/local.gif", "/tmp/local-T.gif"),
        ("file:///tmp/local.gif", "file:///tmp/local-T.gif"),
        ("key", "key-T"),
    ])
    func transformed(key: String, expected: String) {
        #expect(CacheKey.transformed(key, suffix: "T") == expected)
    }

    @Test("a thumbnail key names the size and keeps the URL a URL")
    func thumbnailed() {
        let key = CacheKey.thumbnailed("http://foo/image.png?x=1", pixelSize: PixelSize(width: 400, height: 300))
        #expect(key == "http://foo/image-Thumbnail(%7B400,300%7D,1).png?x=1")
        #expect(CacheKey.thumbnailed("a.png", pixelSize: PixelSize(width: 4, height: 3), preserveAspectRatio: false)
            == "a-Thumbnail({4,3},0).png")
    }

    @Test("scale comes from @2x. / @3x., and %402x. in http URLs", arguments: [
        ("http://foo/image@2x.png", 2.0),
        ("http://foo/image@3x.png?x", 3.0),
        ("https://foo/image%402x.png", 2.0),
        ("/tmp/image%403x.png", 1.0),
        ("http://foo/image@2x", 1.0),
        ("http://foo/image.png", 1.0),
        ("img@2x.png", 2.0),
        ("@2x.png", 1.0),
        ("http://foo/a@3x.b@2x.png", 2.0),
        ("http://foo/画像@3x.png", 3.0),
    ])
    func scale(key: String, expected: Double) {
        #expect(CacheKey.scale(for: key) == expected)
    }

    @Test("file names are the lowercase MD5 plus a short alphanumeric extension", arguments: [
        ("http://foo/image.png?x=1#y", "png"),
        ("http://foo/image.JPG", "JPG"),
        ("http://foo/image.webp#frag", "webp"),
        ("http://foo/image", nil),
        ("http://foo.com", nil),
        ("http://foo/image.toolongext", nil),
        ("http://foo/image.p-g", nil),
        ("http://foo/.hidden", nil),
        ("http://foo.com/dir.d/file", nil),
        ("http://foo/a.png/", nil),
        ("http://foo/a.", nil),
        ("/local/photo.jpeg", "jpeg"),
        ("photo.gif", "gif"),
        ("a?b://c/d.png", nil),
        ("bad scheme://host/x.png", "png"),
        ("http://foo/ünïcode.png?q", "png"),
        ("http://foo/bild.pñg", nil),
    ] as [(String, String?)])
    func fileName(key: String, ext: String?) {
        let name = CacheKey.fileName(for: key)
        let md5 = String(name.prefix(32))
        #expect(md5.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(name == md5 + (ext.map { "." + $0 } ?? ""))
    }

    @Test("the MD5 is the standard digest of the UTF-8 key")
    func knownDigest() {
        // md5("") and md5("abc") from RFC 1321.
        #expect(CacheKey.fileName(for: "") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(CacheKey.fileName(for: "abc") == "900150983cd24fb0d6963f7d28e17f72")
    }
}
