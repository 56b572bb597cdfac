import Foundation
import Testing
import WebImageCodecs
import WebImageServer

/// `local:///path` sources under `ProxyConfig.localRoot` (`--local-root`,
/// `IMGPROXY_LOCAL_FILESYSTEM_ROOT`), over HTTP on loopback: files inside the root are
/// served (symlinks inside it too, the URL's host ignored as imgproxy ignores it); every way
/// out of the root or to something that is not a regular file is refused with its status,
/// and validators come from the file's modification time and size.
@Suite("local:// sources", .serialized)
struct LocalSourceTests {
    static func config(_ root: LocalRoot, cache: Bool = true) -> ProxyConfig {
        var config = ProxyConfig.testing
        config.localRoot = root.root
        config.isCacheEnabled = cache
        return config
    }

    /// `/unsafe/rs:fit:16:16/f:png/plain/{source}`.
    static func plain(_ source: String) -> String { "/unsafe/rs:fit:16:16/f:png/plain/" + source }
    /// The same with the source base64url-encoded (taken literally by the server).
    static func encoded(_ source: String) -> String { "/unsafe/rs:fit:16:16/f:png/" + ProxyHarness.base64URL(source) }

    /// Whether an answer is the gradient of `a.png` (not the red secret), scaled to 16×16.
    static func isGradient(_ answer: ProxyHarness.Answer) throws -> Bool {
        let image = try Fixtures.decode(answer.body)
        let p = image.pixels
        guard p.width == 16, p.height == 16 else { return false }
        // Top-left is dark red-green, bottom-right bright: the secret is uniform red.
        let first = Int(p.bytes[1]), last = Int(p.bytes[(15 * 16 + 15) * 4 + 1])
        return last - first > 150
    }

    @Test("Files inside the root are served; the host part is ignored")
    func served() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        try await ProxyHarness.with(Self.config(root)) { proxy in
            for source in ["local:///a.png", "local:///sub/b.png", "local:///link-in.png", "local:///sub/../a.png",
                           "local://ignored-host/a.png", "local:////a.png"] {
                for path in [Self.plain(source), Self.encoded(source)] {
                    let answer = try await proxy.get(path)
                    #expect(answer.status == 200, "\(path)")
                    if answer.status == 200 { #expect(try Self.isGradient(answer), "\(path)") }
                }
            }
        }
    }

    @Test("Ways out of the root and non-regular files are refused with their status")
    func refused() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        try await ProxyHarness.with(Self.config(root)) { proxy in
            // (path, status, error name)
            let cases: [(String, Int, String?)] = [
                (Self.plain("local:///../outside/secret.png"), 403, "sourceForbidden"),
                (Self.encoded("local:///../outside/secret.png"), 403, "sourceForbidden"),
                (Self.plain("local:///sub/../../outside/secret.png"), 403, "sourceForbidden"),
                // Decoded once by the plain form: `..` again.
                (Self.plain("local:///%2e%2e/outside/secret.png"), 403, "sourceForbidden"),
                (Self.plain("local:///%2E%2E/outside/secret.png"), 403, "sourceForbidden"),
                // Taken literally in base64: a directory named `%2e%2e`, which does not exist.
                (Self.encoded("local:///%2e%2e/outside/secret.png"), 404, nil),
                (Self.plain("local:///%252e%252e/outside/secret.png"), 404, nil),
                (Self.plain("local:///link-out.png"), 403, "sourceForbidden"),
                (Self.plain("local:///dir-out/secret.png"), 403, "sourceForbidden"),
                (Self.plain("local:///pipe.png"), 403, "sourceForbidden"),
                (Self.plain("local:///sub"), 404, nil),
                (Self.plain("local:///sub/"), 404, nil),
                (Self.plain("local:///missing.png"), 404, nil),
                (Self.plain("local:///a.png/x"), 404, nil),
                (Self.plain("local:///"), 400, "invalidOptions"),
            ]
            for (path, status, name) in cases {
                let answer = try await proxy.get(path, timeout: .seconds(10))
                #expect(answer.status == status, "\(path): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
                if let name { #expect(answer.errorCode?.name == name, "\(path)") }
            }
            // The server still serves after all that (the FIFO held no thread).
            #expect(try await proxy.get(Self.plain("local:///a.png")).status == 200)
        }
    }

    @Test("A missing local file is 404 in words about a file, not an HTTP status no one sent")
    func missingFileMessage() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        try await ProxyHarness.with(Self.config(root)) { proxy in
            let answer = try await proxy.get(Self.plain("local:///missing.png"))
            #expect(answer.status == 404)
            let body = String(decoding: answer.body, as: UTF8.self)
            #expect(body.contains("No file at that path") && !body.contains("HTTP"), "\(body)")
        }
    }

    @Test("Off without a root: local:// is a scheme this server does not take")
    func disabled() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        try await ProxyHarness.with(ProxyConfig.testing) { proxy in
            let answer = try await proxy.get(Self.plain("local:///a.png"))
            #expect(answer.status == 400)
            #expect(answer.errorCode?.name == "invalidOptions")
        }
    }

    @Test("A file over the source size limit is 422")
    func tooLarge() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        try root.add(Fixtures.corpus.appendingPathComponent("jpeg/exif-orientation/Landscape_1.jpg"), as: "big.jpg")
        var config = Self.config(root)
        config.maxSourceBytes = 1024   // the smallest limit; big.jpg has far more
        try await ProxyHarness.with(config) { proxy in
            let answer = try await proxy.get(Self.plain("local:///big.jpg"))
            #expect(answer.status == 422)
            #expect(answer.errorCode?.name == "responseTooLarge")
        }
    }

    /// IMF-fixdate, written here independently of the server's formatter.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    @Test("ETag and Last-Modified come from the file's mtime and size; If-None-Match gives 304")
    func validators() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        let file = root.root.appendingPathComponent("a.png")
        let first = Date(timeIntervalSince1970: 1_700_000_000)
        let second = Date(timeIntervalSince1970: 1_700_003_600)
        try FileManager.default.setAttributes([.modificationDate: first], ofItemAtPath: file.path)
        // Without result caching, so every request reads the file again.
        try await ProxyHarness.with(Self.config(root, cache: false)) { proxy in
            let path = Self.plain("local:///a.png")
            let answer = try await proxy.get(path)
            #expect(answer.status == 200)
            let etag = try #require(answer.header("ETag"))
            #expect(answer.header("Last-Modified") == Self.httpDate(first))
            let again = try await proxy.get(path, headers: [("If-None-Match", etag)])
            #expect(again.status == 304)
            #expect(again.body.isEmpty)

            // Same bytes, another mtime: another ETag, and the old one no longer matches.
            try FileManager.default.setAttributes([.modificationDate: second], ofItemAtPath: file.path)
            let touched = try await proxy.get(path, headers: [("If-None-Match", etag)])
            #expect(touched.status == 200)
            #expect(touched.header("ETag") != etag)
            #expect(touched.header("Last-Modified") == Self.httpDate(second))

            // Back to the first mtime: the first ETag again (nothing else went into it).
            try FileManager.default.setAttributes([.modificationDate: first], ofItemAtPath: file.path)
            #expect(try await proxy.get(path, headers: [("If-None-Match", etag)]).status == 304)

            // Same mtime, one byte more: another ETag.
            var bytes = try Data(contentsOf: file)
            bytes.append(0)
            try bytes.write(to: file)
            try FileManager.default.setAttributes([.modificationDate: first], ofItemAtPath: file.path)
            let grown = try await proxy.get(path, headers: [("If-None-Match", etag)])
            #expect(grown.status == 200)
            #expect(grown.header("ETag") != etag)
        }
        // With the caches on, the same validators answer 304 (from the cached result).
        try FileManager.default.setAttributes([.modificationDate: first], ofItemAtPath: file.path)
        try await ProxyHarness.with(Self.config(root)) { proxy in
            let path = Self.plain("local:///a.png")
            let etag = try #require(try await proxy.get(path).header("ETag"))
            #expect(try await proxy.get(path, headers: [("If-None-Match", etag)]).status == 304)
        }
    }
}
