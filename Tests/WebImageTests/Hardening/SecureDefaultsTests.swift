import Foundation
import Testing
@testable import WebImage
import WebImageCompat
@testable import WebImageCodecs
import WebImageTestOrigin

/// What WebImage does by default with URLs, redirects and cache file names, where a
/// careless default would let a hostile server or key reach further than an image.
@Suite("Hardening: secure defaults", .timeLimit(.minutes(2)))
struct SecureDefaultsTests {
    static let hostileKeys = [
        "../../../../etc/passwd", "/etc/passwd", "a/b/c.png", "..", ".", "", "key\u{0}with-nul.png",
        "https://x.example/../../escape.png", "https://x.example/a.png/../../../b", "C:\\windows\\win.ini",
        "https://x.example/a.png%2F..%2F..%2Fz", "https://x.example/image." + String(repeating: "p", count: 300),
        "https://x.example/file.p/ng", "https://x.example/a.sh;rm -rf", String(repeating: "k", count: 5000),
    ]

    @Test("cache file names are a hex digest plus a short alphanumeric extension, whatever the key",
          arguments: hostileKeys)
    func fileNames(key: String) {
        let name = CacheKey.fileName(for: key)
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts[0].count == 32 && parts[0].allSatisfy { $0.isHexDigit && !$0.isUppercase }, "\(name)")
        #expect(parts.count <= 2)
        if parts.count == 2 {
            #expect((1...8).contains(parts[1].count) && parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) },
                    "\(name)")
        }
    }

    @Test("entries of hostile keys stay inside the cache directory")
    func noTraversal() async throws {
        let dir = try TemporaryDirectory()
        let cacheDir = dir.url.appendingPathComponent("inner/cache")
        let cache = DiskCache(directory: cacheDir)
        for (i, key) in Self.hostileKeys.enumerated() {
            try await cache.store(Data("entry \(i)".utf8), forKey: key)
            try await cache.setExtendedData(Data("extended \(i)".utf8), forKey: key)
        }
        for (i, key) in Self.hostileKeys.enumerated() {
            #expect(await cache.data(forKey: key) == Data("entry \(i)".utf8))
        }
        // Nothing outside: the parents hold only the cache directory.
        #expect(TemporaryDirectory.names(in: dir.url) == ["inner"])
        #expect(TemporaryDirectory.names(in: dir.url.appendingPathComponent("inner")) == ["cache"])
        #expect(await cache.totalCount() == Set(Self.hostileKeys.map(CacheKey.fileName(for:))).count)
        for name in TemporaryDirectory.names(in: cacheDir) {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: cacheDir.appendingPathComponent(name).path, isDirectory: &isDirectory)
            #expect(!isDirectory.boolValue, "\(name) is a directory")
        }
    }

    @Test("the shared loaders take http, https and data URLs and nothing else (file: is opt-in)")
    func schemes() throws {
        let loaders = ImageLoadersManager.shared
        for text in ["http://x.example/a.png", "https://x.example/a.png", "data:image/png;base64,AAAA"] {
            #expect(loaders.canRequestImage(for: URL(string: text)), "\(text)")
        }
        for text in ["file:///tmp/a.png", "ftp://x.example/a.png", "gopher://x.example/a", "javascript:alert(1)", "unix:///var/run/x.sock",
                     "http+unix://%2Fvar%2Frun%2Fx.sock/a.png", "smb://x.example/a.png", "jar:file:///a.jar!/a.png"] {
            #expect(!loaders.canRequestImage(for: URL(string: text)), "\(text)")
        }
    }

    @Test("file: URLs are off in the shared loaders, and stay off without the file loader")
    func fileSwitchedOff() async throws {
        let loaders = ImageLoadersManager(loaders: ImageLoadersManager.shared.loaders.filter { !($0 is FileImageLoader) })
        loaders.allowedSchemes = .all
        let dir = try TemporaryDirectory()
        let file = dir.url.appendingPathComponent("a.png")
        try ManagerTestKit.png().write(to: file)
        #expect(!ImageLoadersManager.shared.canRequestImage(for: file))
        #expect(!loaders.canRequestImage(for: file))
        let manager = ImageManager(cache: ImageCache(namespace: "n", directory: dir.url), loader: loaders)
        let error = await #expect(throws: WebImageError.self) { try await manager.loadImage(with: file) }
        #expect(error?.code == .invalidURL)
    }

    @Test("at most 10 redirects by default, and none to another scheme")
    func redirects() async throws {
        #expect(DownloaderConfig().maxRedirects == 10)
        try await TestOrigin.with { origin in
            let downloader = ImageDownloader(config: DownloaderConfig())
            let body = Array(ManagerTestKit.png())
            for i in 0..<11 { origin.route("/hop\(i)", .redirect(to: "/hop\(i + 1)")) }
            origin.route("/hop11", .init(body: body, contentType: "image/png"))
            func code(_ path: String) async -> WebImageError.Code? {
                do {
                    _ = try await downloader.loadImage(with: origin.url(path))
                    return nil
                } catch {
                    return error.code
                }
            }
            #expect(await code("/hop1") == nil, "10 redirects are followed")
            #expect(await code("/hop0") == .tooManyRedirects, "the 11th is not")
            origin.route("/to-data", .redirect(to: "data:image/png;base64," + Data(body).base64EncodedString()))
            #expect(await code("/to-data") == .tooManyRedirects)

            // http -> https: refused by default, before anything is asked of the https side.
            try await TestOrigin.with(tls: true) { secure in
                secure.route("/a.png", .init(body: body, contentType: "image/png"))
                origin.route("/to-https", .redirect(to: secure.url("/a.png").absoluteString))
                let refused = await #expect(throws: WebImageError.self) {
                    try await downloader.loadImage(with: origin.url("/to-https"), options: .allowInvalidSSLCertificates)
                }
                #expect(refused?.code == .tooManyRedirects)
                #expect(secure.requestCount("/a.png") == 0)
                // https -> http (a downgrade) likewise.
                secure.route("/to-http", .redirect(to: origin.url("/hop11").absoluteString))
                let downgrade = await #expect(throws: WebImageError.self) {
                    try await downloader.loadImage(with: secure.url("/to-http"), options: .allowInvalidSSLCertificates)
                }
                #expect(downgrade?.code == .tooManyRedirects)

                // Allowed by the config flag, the same redirect is followed to the https origin.
                var config = DownloaderConfig()
                config.allowsCrossSchemeRedirects = true
                let permissive = ImageDownloader(config: config)
                let response = try await permissive.loadImage(with: origin.url("/to-https"), options: .allowInvalidSSLCertificates)
                #expect(response.http?.url == secure.url("/a.png"))
                #expect(response.image?.width == 32, "decoded the PNG")
                #expect(secure.requestCount("/a.png") == 1)
                await permissive.shutdown()
                await downloader.shutdown()
            }
        }
    }

    @Test("certificate checks are on unless allowInvalidSSLCertificates asks otherwise")
    func tlsOptionMapping() {
        #expect(!WebImageOptions().contains(.allowInvalidSSLCertificates))
        // The manager hands the bit to its loader unchanged (one option set since #37).
        #expect(WebImageOptions.allowInvalidSSLCertificates.intersection(ImageRequest.loaderBits) == .allowInvalidSSLCertificates)
    }

    @Test("error messages never carry the password of a URL's user info")
    func noPasswordInErrors() async throws {
        try await TestOrigin.with { origin in
            let downloader = ImageDownloader(config: DownloaderConfig())
            origin.route("/500.png", .status(500))
            origin.route("/text.png", .init(body: Array("not an image".utf8), contentType: "image/png"))
            let dir = try TemporaryDirectory()
            let manager = ImageManager(cache: ImageCache(namespace: "n", directory: dir.url), loader: downloader)
            for path in ["/500.png", "/text.png", "/missing.png"] {
                let url = try #require(URL(string: "http://user:s3cr3t-pw@127.0.0.1:\(origin.port)\(path)"))
                do {
                    _ = try await manager.loadImage(with: url)
                    Issue.record("\(path) loaded")
                } catch {
                    #expect(!"\(error)".contains("s3cr3t-pw"), "\(error)")
                }
            }
            await downloader.shutdown()
        }
    }
}
