import AsyncHTTPClient
import Foundation
import Testing
import WebImageServer

/// imgproxy's environment variables for sources and `/info` presets, read into
/// ``ProxyConfig`` as its documentation names them (docs/image_sources/local_files.mdx,
/// amazon_s3.mdx, docs/usage/getting_info.mdx).
@Suite("Source and /info environment variables")
struct SourceEnvironmentTests {
    @Test("local root, S3 settings, query separator, info presets")
    func read() throws {
        let root = try LocalRoot()
        defer { root.remove() }
        let (c, _) = try ProxyConfig().applyingEnvironment([
            "IMGPROXY_LOCAL_FILESYSTEM_ROOT": root.root.path,
            "IMGPROXY_USE_S3": "true",
            "IMGPROXY_S3_ENDPOINT": "127.0.0.1:9000",
            "IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE": "false",
            "IMGPROXY_S3_REGION": "eu-west-3",
            "IMGPROXY_S3_ALLOWED_BUCKETS": "a,b",
            "IMGPROXY_S3_DENIED_BUCKETS": "c",
            "AWS_ACCESS_KEY_ID": "AKID",
            "AWS_SECRET_ACCESS_KEY": "SECRET",
            "AWS_SESSION_TOKEN": "TOKEN",
            "IMGPROXY_SOURCE_URL_QUERY_SEPARATOR": "?v=",
            "IMGPROXY_INFO_PRESETS": "default=exif:0,hashes=bh:4:3/th:1",
        ])
        #expect(c.localRoot?.standardizedFileURL.path == root.root.standardizedFileURL.path)
        #expect(c.s3.isEnabled)
        // imgproxy prefixes http:// to an endpoint without a scheme.
        #expect(c.s3.endpoint?.absoluteString == "http://127.0.0.1:9000")
        #expect(c.s3.usesPathStyle == false)
        #expect(c.s3.region == "eu-west-3")
        #expect(c.s3.allowedBuckets == ["a", "b"] && c.s3.deniedBuckets == ["c"])
        #expect(c.s3.credentials == .init(accessKeyID: "AKID", secretAccessKey: "SECRET", sessionToken: "TOKEN"))
        #expect(c.sourceURLQuerySeparator == "?v=")
        #expect(Set(c.infoPresets.definitions.keys) == ["default", "hashes"])
        // AWS_REGION when imgproxy's own is unset; us-east-1 by default.
        #expect(try ProxyConfig().applyingEnvironment(["AWS_REGION": "ap-south-1"]).0.s3.region == "ap-south-1")
        #expect(ProxyConfig().s3.region == "us-east-1" && !ProxyConfig().s3.isEnabled && ProxyConfig().localRoot == nil)
    }

    /// The variables `serve` warns about: IMGPROXY_* names it never asks for (settings it
    /// does not have, misspellings) and one another variable overrides; not the ones it reads,
    /// nor variables of other programs.
    @Test("unread IMGPROXY_* variables are listed; read ones and other variables are not")
    func unreadVariables() {
        let unread = ProxyConfig.unreadEnvironmentVariables([
            "IMGPROXY_LOG_LEVEL": "debug", "IMGPROXY_ALLOW_ORIGIN": "*", "IMGPROXY_DOWNLOAD_TIMEOUT": "5",
            "IMGPROXY_USE_ETAG": "true", "IMGPROXY_QUALTY": "70",
            "IMGPROXY_QUALITY": "70", "IMGPROXY_KEY": "0123456789abcdef", "IMGPROXY_SALT": "fedcba9876543210",
            "IMGPROXY_WORKERS": "4", "IMGPROXY_CONCURRENCY": "8", "HOME": "/root", "PORT": "8080",
        ])
        #expect(unread == ["IMGPROXY_ALLOW_ORIGIN", "IMGPROXY_CONCURRENCY", "IMGPROXY_DOWNLOAD_TIMEOUT",
                           "IMGPROXY_LOG_LEVEL", "IMGPROXY_QUALTY", "IMGPROXY_USE_ETAG"])
        #expect(ProxyConfig.unreadEnvironmentVariables(["IMGPROXY_TTL": "60", "IMGPROXY_BIND": ":8081"]).isEmpty)
    }

    @Test("serve warns once at start about the IMGPROXY_* variables it does not read")
    func serveWarnsAboutUnreadVariables() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let log = work.appendingPathComponent("serve.log")
        let instance = try await ServeInstance.start(
            [], environment: ["IMGPROXY_LOG_LEVEL": "debug", "IMGPROXY_USE_ETAG": "true", "IMGPROXY_TTL": "60"],
            log: log, client: HTTPClient.shared)
        await instance.process.stop()
        let text = try String(contentsOf: log, encoding: .utf8)
        let warnings = text.split(separator: "\n").filter { $0.contains("not read by webimage serve") }
        #expect(warnings.count == 1, "\(text)")
        #expect(warnings.first?.contains("IMGPROXY_LOG_LEVEL, IMGPROXY_USE_ETAG") == true, "\(text)")
        #expect(warnings.first?.contains("IMGPROXY_TTL") == false)
    }

    @Test("A root that is not a directory, a key without its secret, a bad endpoint stop the server")
    func invalid() {
        #expect(throws: (any Error).self) { try ProxyConfig().applyingEnvironment(["IMGPROXY_LOCAL_FILESYSTEM_ROOT": "/nonexistent/webimage"]) }
        #expect(throws: (any Error).self) { try ProxyConfig().applyingEnvironment(["AWS_ACCESS_KEY_ID": "AKID"]) }
        #expect(throws: (any Error).self) { try ProxyConfig().applyingEnvironment(["IMGPROXY_S3_ENDPOINT": "ftp://x"]) }
    }

    @Test("An info preset with an unknown option stops the server at start")
    func badPreset() throws {
        let (c, _) = try ProxyConfig().applyingEnvironment(["IMGPROXY_INFO_PRESETS": "default=nonsense:1"])
        #expect(throws: ProxyError.self) { try ImageProxy.validateInfoPresets(c) }
        let (good, _) = try ProxyConfig().applyingEnvironment(["IMGPROXY_INFO_PRESETS": "default=bh:4:3/avg:1"])
        try ImageProxy.validateInfoPresets(good)
    }

    @Test("serve --help lists the source flags; a --local-root that is not a directory is a usage error")
    func flags() async throws {
        let help = try await InfoCommandTests.run(["serve", "--help"])
        #expect(help.status == 0)
        let text = String(decoding: help.out, as: UTF8.self)
        for flag in ["--local-root", "--use-s3", "--s3-endpoint", "--s3-region", "--s3-virtual-hosted", "--s3-allow-bucket",
                     "--s3-deny-bucket", "--info-preset"] {
            #expect(text.contains(flag), "\(flag) is not in serve --help")
        }
        #expect(try await InfoCommandTests.run(["serve", "--unsigned", "--port", "0", "--local-root", "/nonexistent/webimage"]).status == 2)
        #expect(try await InfoCommandTests.run(["serve", "--unsigned", "--port", "0", "--info-preset", "default=nonsense:1"]).status == 2)
    }
}
